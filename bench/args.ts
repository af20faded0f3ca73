// Command-line options of one bench: node's parseArgs, plus `--help` (usage with each option, exit 0) and a one-line
// error for a bad option (exit 3), so every bench answers `--help` the same way.
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Parse this process's arguments for bench `name`; `help` describes each option (and `positionals`, if any). */
export function benchArgs<T extends ParseArgsConfig>(
  name: string,
  summary: string,
  help: Record<string, string>,
  config: T,
): ReturnType<typeof parseArgs<T>> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(usage(name, summary, help, config));
    process.exit(0);
  }
  try {
    return parseArgs<T>({ ...config, args });
  } catch (err) {
    process.stderr.write(`${name}: ${(err as Error).message} (see --help)\n`);
    process.exit(3);
  }
}

/** The usage text: what the bench measures, then each option with its type and default. */
function usage(name: string, summary: string, help: Record<string, string>, config: ParseArgsConfig): string {
  const lines = [
    `usage: node dist/bench/${name}.js [options]${config.allowPositionals ? ' [args...]' : ''}`,
    '',
    summary,
    '',
  ];
  for (const [option, o] of Object.entries(config.options ?? {})) {
    const value = o.type === 'string' ? ' <value>' : '';
    const fallback = o.default === undefined ? '' : ` (default: ${String(o.default)})`;
    lines.push(`  --${option}${value}`, `      ${help[option] ?? ''}${fallback}`);
  }
  if (config.allowPositionals && help['args'] !== undefined) lines.push('  args', `      ${help['args']}`);
  lines.push('  --help', '      this text', '');
  return lines.join('\n');
}
