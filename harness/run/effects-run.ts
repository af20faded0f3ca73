// A run's external effects (issue 34): serve the run's effect ledger while the runner lives, tell every host where it
// is (the process target's targetOptions.effects), and after each judged resume count what the world saw (effects/
// accounting.ts) into one effects event; the rows it counted are marked once the event is on disk.
import type { JournalWriter } from '../journal/writer.js';
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { JOURNAL_FILE } from '../analysis/load-runs.js';
import type { Scenario } from '../scenario/scenario.js';
import type { HostHandle } from '../session/host-handle.js';
import { accountEffects } from '../effects/accounting.js';
import { EffectLedger, ledgerFile } from '../effects/ledger.js';
import { LedgerDb } from '../effects/ledger-db.js';
import { DISCIPLINES, LEDGER_TOKEN_ENV, type Discipline } from '../effects/plan.js';
import { ConfigError } from '../core/errors.js';
import type { TargetInfo } from '../targets/target.js';
import { effectsRefusal } from '../targets/exec/target.js';

/** Before a run folder exists: effects on an exec adapter whose describe declared no way to the ledger are refused. */
export function refuseUnreachableLedger(scenario: Scenario, target: TargetInfo): void {
  if (scenario.effects !== undefined && target.kind === 'exec' && target.effectsReach === undefined) {
    const adapter = scenario.targetOptions.adapter ?? target.adapter;
    throw new ConfigError(effectsRefusal(typeof adapter === 'string' ? adapter : 'adapter'));
  }
}

/** Create the ledger of a new run folder (a run with effects; before any host can emit). */
export function createLedger(runDir: string, scenario: Scenario): void {
  if (scenario.effects !== undefined) LedgerDb.create(ledgerFile(runDir)).close();
}

/** Open and check the ledger of `runDir` (InputError naming the file when it is missing or damaged), then close it. */
export function checkLedger(runDir: string): void {
  LedgerDb.open(ledgerFile(runDir), { readonly: true }).close();
}

/**
 * Before a report: a run folder whose run-start enables effects (not a merge: `soak merge` copies only journals) must
 * have a sound ledger, or the report would publish counts whose world is gone. Reads only the journal's first line.
 */
export function checkLedgerOfRun(runDir: string): void {
  const fd = openSync(path.join(runDir, JOURNAL_FILE), 'r');
  const head = Buffer.alloc(1 << 20);
  const n = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  let start: { type?: string; scenario?: { effects?: unknown }; mergedFrom?: unknown };
  try {
    start = JSON.parse(head.subarray(0, n).toString('utf8').split('\n')[0] ?? '') as typeof start;
  } catch {
    return; // the journal's own reader names what is wrong with it
  }
  if (start.type === 'run-start' && start.scenario?.effects !== undefined && start.mergedFrom === undefined)
    checkLedger(runDir);
}

/** Per discipline: the duplicates and lost effects the accountings so far found. */
export type JudgedTotals = Record<Discipline, { duplicates: number; lost: number }>;

/** The runner's side of the effects of a run whose scenario enables them. */
export class RunEffects {
  /** What this runner's accountings found so far (the demo shows it live). */
  readonly judged: JudgedTotals = Object.fromEntries(
    DISCIPLINES.map((d) => [d, { duplicates: 0, lost: 0 }]),
  ) as JudgedTotals;

  private constructor(
    readonly ledger: EffectLedger,
    private readonly plan: { seed: number; everySteps: number },
  ) {}

  /** Serve the ledger of `runDir` (missing or damaged: InputError naming the file); null when the run has no effects. */
  static async start(runDir: string, scenario: Scenario): Promise<RunEffects | null> {
    if (scenario.effects === undefined) return null;
    const ledger = await EffectLedger.start(runDir);
    process.env[LEDGER_TOKEN_ENV] = ledger.token; // inherited by every host and agent started from now on
    return new RunEffects(ledger, { seed: scenario.seed, everySteps: scenario.effects.everySteps });
  }

  /** The scenario's targetOptions with the ledger's address and the effect plan added (the token goes by environment). */
  targetOptions(scenario: Scenario): Record<string, unknown> {
    return { ...scenario.targetOptions, effects: { ledger: this.ledger.address, ...this.plan } };
  }

  /**
   * Journal the accounting after cycle `cycle`, judged against the claim of `host`'s restored session (null: no
   * session resumed, or the run's end: the rows are counted without a claim). Returns what marks the rows counted.
   */
  account(journal: JournalWriter, cycle: number, host: HostHandle | null): () => void {
    const claim = host?.effectsClaim ?? null;
    const session = host?.nonce ?? null;
    const resumed = claim !== null && session !== null ? { session, claim } : null;
    const { fields, seqs } = accountEffects(this.ledger.rows(), resumed, this.plan, this.ledger.clones());
    if (seqs.length === 0 && resumed === null) return () => {};
    journal.append({ type: 'effects', cycle, ...fields });
    for (const d of DISCIPLINES) {
      this.judged[d].duplicates += fields.disciplines[d].duplicates;
      this.judged[d].lost += fields.disciplines[d].lost;
    }
    return () => this.ledger.markAccounted(seqs);
  }

  async close(): Promise<void> {
    if (process.env[LEDGER_TOKEN_ENV] === this.ledger.token) Reflect.deleteProperty(process.env, LEDGER_TOKEN_ENV);
    await this.ledger.close();
  }
}
