// The demo's resume rate line: nothing before a judged interruption, undecided early, decided at the gate's numbers.
import { describe, expect, it } from 'vitest';
import { resumeRateText } from '../../harness/demo/resume-rate.js';

describe('resumeRateText', () => {
  it('says what the anytime-valid interval supports against 95%, at the numbers docs/anytime.md gives', () => {
    expect(resumeRateText({ resumed: 0, failed: 0 })).toMatch(/no interruption judged yet$/);
    expect(resumeRateText({ resumed: 64, failed: 0 })).toMatch(/over 64 judged; not decided against 95% yet/);
    expect(resumeRateText({ resumed: 65, failed: 0 })).toMatch(
      /\[95(\.\d)?%, 100%\] over 65 judged; certified above 95%/,
    );
    expect(resumeRateText({ resumed: 0, failed: 2 })).toMatch(/over 2 judged; certified below 95%/);
  });
});
