// `soak check <run-dir>`: run the checker again over every observation a run journaled and report each cycle whose
// verdict differs from the journaled one.
import path from 'node:path';
import type { Argv } from 'yargs';
import { JOURNAL_FILE, resolveRunDir } from '../analysis/load-runs.js';
import { Rechecker, recheckExitCode, type RecheckResult } from '../analysis/recheck.js';
import { streamJournal } from '../journal/reader.js';
import { EXIT, InputError } from '../core/errors.js';
import { escapedJson, visible } from '../core/visible.js';
import { JournalProtocol, protocolMessage } from '../journal/protocol.js';
import { defineCommand } from './command.js';
import { VERBS } from './verbs.js';
import { OUTPUT_SCHEMA_VERSION } from '../report/output-schemas.js';

interface CheckArgs {
  runDir: string;
  json: boolean;
}

/** The human-readable report of a re-check. */
function formatRecheck(r: RecheckResult): string {
  const lines: string[] = [];
  if (r.rechecked === 0) {
    lines.push(
      `no observations recorded: none of the ${r.cycles} cycles has one (a journal written before observations were journaled, or no session resumed); nothing to re-check`,
    );
  } else {
    lines.push(
      `re-checked ${r.rechecked} of ${r.cycles} cycles from their journaled observations: ${r.agreed} agree, ${r.changed.length} changed` +
        (r.unobserved > 0 ? ` (${r.unobserved} without an observation: the session never resumed)` : ''),
    );
  }
  if (r.indeterminate.length > 0)
    lines.push(
      `${r.indeterminate.length} cycles journaled indeterminate (infrastructure faults) stay indeterminate, not re-judged: ${r.indeterminate.join(', ')}`,
    );
  for (const c of r.changed) {
    const now = c.rechecked.violations.map((v) => `${v.code}: ${v.message}`).join('; ');
    const was = c.journaled.codes.length > 0 ? ` [${c.journaled.codes.join(' ')}]` : '';
    lines.push(
      `cycle ${c.cycle}: verdict changed: journaled ${c.journaled.outcome}${was}, re-check ${c.rechecked.outcome}${now ? ` (${now})` : ''}`,
    );
  }
  if (r.journaledFailures > 0) lines.push(`the run journaled ${r.journaledFailures} failed cycles (violations)`);
  if (r.adapterFaults > 0)
    lines.push(
      `${r.adapterFaults} adapter faults (the exec adapter broke the target protocol: its fault, not the runtime's)`,
    );
  const code = recheckExitCode(r);
  const words: Record<number, string> = {
    [EXIT.pass]: 'PASS',
    [EXIT.fail]: 'FAIL',
    [EXIT.adapterFault]: 'ADAPTER FAULT',
  };
  lines.push(`verdict: ${words[code] ?? 'NO OBSERVATIONS'}`);
  return `${lines.join('\n')}\n`;
}

/** A damaged journal's report: each protocol error by line, then what the valid part before the first one says. */
function formatDamage(
  errors: { line: number; code: string; message: string }[],
  total: number,
  r: RecheckResult,
): string {
  const lines = [
    `journal damaged: ${total} protocol error${total === 1 ? '' : 's'}; nothing from line ${errors[0]!.line} on is re-checked or counted`,
    ...errors.map((e) => `line ${e.line}: ${e.code}: ${e.message}`),
  ];
  if (total > errors.length) lines.push(`... and ${total - errors.length} more`);
  const before = formatRecheck(r).trimEnd().split('\n').slice(0, -1); // its verdict line is replaced below
  if (r.cycles > 0) lines.push(`before line ${errors[0]!.line}: ${before.join('; ')}`);
  lines.push('verdict: JOURNAL DAMAGED (no verdict on the system under test; exit 3)');
  return `${lines.join('\n')}\n`;
}

export const checkCommand = defineCommand<CheckArgs>({
  command: VERBS.check.command,
  describe: VERBS.check.describe,
  builder: (y: Argv) =>
    y
      .positional('run-dir', { type: 'string', describe: 'Run folder (made by "soak run" or "soak merge")' })
      .option('json', { type: 'boolean', default: false, describe: 'JSON output' }) as unknown as Argv<CheckArgs>,
  run: (argv) => {
    const dir = resolveRunDir(argv.runDir);
    const checker = new Rechecker();
    const file = path.join(dir, JOURNAL_FILE);
    const protocol = new JournalProtocol(file); // collects every error: each is named below
    const { tornTail } = streamJournal(file, (e) => checker.add(e), { protocol });
    const { errors, total } = protocol.errors();
    if (!checker.started && total === 0)
      throw new InputError(`journal ${file} has no run-start event (is it a journal written by "soak run"?)`);
    const r = checker.result();
    // A damaged journal is no verdict at all (exit 3): its valid part is re-checked, the rest named line by line.
    const code = total > 0 ? EXIT.badInput : recheckExitCode(r);
    const journalErrors = errors.map((e) => ({ line: e.line, code: e.code, message: protocolMessage(e) }));
    if (argv.json)
      process.stdout.write(
        `${escapedJson({ schemaVersion: OUTPUT_SCHEMA_VERSION, runDir: dir, exitCode: code, ...r, journalErrors, journalErrorCount: total }, 2)}\n`,
      );
    else process.stdout.write(visible(total > 0 ? formatDamage(journalErrors, total, r) : formatRecheck(r)));
    if (tornTail !== null) process.stderr.write(`soak: the journal's torn last line was dropped\n`);
    return code;
  },
});
