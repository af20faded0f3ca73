// The demo's resume rate as it may be watched: the anytime-valid interval of "resumed and verified" over the
// interruptions judged so far, and what it supports against the kill-and-resume gate's 95% bar (stats/anytime.ts).
import { anytimeInterval, decideRate } from '../stats/anytime.js';

/** The bar of gate 6 (kill-and-resume success) and the level of its anytime decision. */
const BAR = 0.95;
const ALPHA = 0.05;

function pct(x: number): string {
  return `${Number((x * 100).toFixed(1))}%`;
}

/** "resume rate, anytime-valid (valid at every look): [x%, y%] of n; above 95%: not decided yet" for the page. */
export function resumeRateText(counts: { resumed: number; failed: number }): string {
  const { resumed, failed } = counts;
  const n = resumed + failed;
  if (n === 0) return 'resume rate, anytime-valid (valid at every look): no interruption judged yet';
  const [lo, hi] = anytimeInterval(resumed, failed, ALPHA);
  const side = decideRate(resumed, failed, BAR, ALPHA);
  const supports =
    side === 'above' ? 'certified above 95%' : side === 'below' ? 'certified below 95%' : 'not decided against 95% yet';
  return `resume rate, anytime-valid (valid at every look): [${pct(lo)}, ${pct(hi)}] over ${n} judged; ${supports} (alpha ${ALPHA})`;
}
