// The nemesis plan's golden record: the kill and fault settings of every shipped scenario (as they were when the record
// was taken) plus a mix of every kind and phase, each under a few seeds, plan the same kill (phase, delays), fault (kind,
// freeze duration) and failing write per cycle as the code did before the nemesis got its own folder (issue 31). A plan
// that moves changes which fault an existing seed delivers: a soak could no longer be replayed. UPDATE_GOLDEN=1 rewrites
// the record, only for a deliberate change of the plan (say so in the CHANGELOG).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planFaultEntry, planKill, planWriteFailure } from '../../harness/nemesis/plan.js';
import { loadScenario, type Scenario } from '../../harness/scenario/scenario.js';
import { repoRoot } from '../helpers/paths.js';

const GOLDEN = path.join(repoRoot, 'test', 'fixtures', 'nemesis-plans.json');
const SEEDS = [1, 7, 17, 23, 4_294_967_295];
/** Cycles recorded row by row (readable when one moves), and cycles covered by the digest. */
const SHOWN = 12;
const DIGESTED = 300;
const FAR_CYCLE = 1_000_003;

/** What the plan reads of a scenario. */
type PlanInput = Pick<Scenario, 'kill' | 'faults'>;
interface Golden {
  inputs: Record<string, PlanInput>;
  /** input name -> seed -> rows of cycles 1..SHOWN, and the sha256 of the rows of 1..DIGESTED and FAR_CYCLE. */
  plans: Record<string, Record<string, { rows: string[]; sha256: string }>>;
}

/** One cycle's plan, compact: phase, work delay, phase delay, fault kind (+ freeze ms), failing write. */
function planRow(s: PlanInput & Pick<Scenario, 'seed'>, cycle: number): string {
  const k = planKill(s as Scenario, cycle);
  const f = planFaultEntry(s, cycle);
  const fault = f.durationMs === undefined ? f.kind : `${f.kind}:${f.durationMs}`;
  return `${k.phase} ${k.workDelayMs} ${k.phaseDelayMs} ${fault} ${planWriteFailure(s, cycle)}`;
}

function plansOf(inputs: Record<string, PlanInput>): Golden['plans'] {
  const out: Golden['plans'] = {};
  for (const [name, input] of Object.entries(inputs)) {
    const ids = [...Array.from({ length: DIGESTED }, (_, i) => i + 1), FAR_CYCLE];
    out[name] = Object.fromEntries(
      SEEDS.map((seed) => {
        const rows = ids.map((c) => planRow({ ...input, seed }, c));
        const sha256 = createHash('sha256').update(rows.join('\n')).digest('hex');
        return [String(seed), { rows: rows.slice(0, SHOWN), sha256 }];
      }),
    );
  }
  return out;
}

/** The inputs when the record is (re)taken: every shipped scenario's kill and faults, and a mix of all of them. */
function currentInputs(): Record<string, PlanInput> {
  const inputs: Record<string, PlanInput> = {};
  for (const f of readdirSync(path.join(repoRoot, 'scenarios')).sort()) {
    if (!f.endsWith('.yaml')) continue;
    const { scenario } = loadScenario(path.join(repoRoot, 'scenarios', f));
    inputs[f.replace(/\.yaml$/, '')] = { kill: scenario.kill, faults: scenario.faults };
  }
  inputs['every-kind-and-phase'] = {
    kill: {
      phases: { work: 3, checkpoint: 2, restore: 1 },
      workDelayMs: [50, 700],
      checkpointDelayMs: [0, 9],
      restoreDelayMs: [1, 80],
    },
    faults: [
      { kind: 'sigkill', weight: 2 },
      { kind: 'power-loss', weight: 1 },
      { kind: 'enospc', weight: 1 },
      { kind: 'eio', weight: 0.5 },
      { kind: 'freeze', weight: 1, durationMs: 750 },
      { kind: 'freeze', weight: 1 },
    ],
  };
  return inputs;
}

describe('the nemesis plan (golden)', () => {
  if (process.env.UPDATE_GOLDEN === '1') {
    const inputs = currentInputs();
    writeFileSync(GOLDEN, `${JSON.stringify({ inputs, plans: plansOf(inputs) } satisfies Golden, null, 1)}\n`);
  }
  const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Golden;

  it('plans every recorded input as before the move to nemesis/, seed for seed and cycle for cycle', () => {
    expect(Object.keys(golden.inputs).length).toBeGreaterThanOrEqual(10);
    expect(plansOf(golden.inputs)).toEqual(golden.plans);
  });

  it('tells a moved plan apart (negative control: one more fault entry moves the fault draws)', () => {
    const input = golden.inputs['every-kind-and-phase']!;
    const moved = { ...input, faults: [...input.faults, { kind: 'sigkill' as const, weight: 1 }] };
    expect(plansOf({ x: moved }).x).not.toEqual(golden.plans['every-kind-and-phase']);
  });
});
