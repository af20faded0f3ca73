// Config error lines, the one format: each problem is `<file>: <the field's dot-path>: <message>` (`(top level)` for
// the file as a whole), every problem collected before one ConfigError is thrown. Scenario and gate loading and the
// targets' option checks all build their errors here.
import { ConfigError } from './errors.js';

/** Where a field sits: keys and array indexes from the top of the file. */
export type FieldPath = readonly PropertyKey[];

/** One problem: the field (its path; [] for the file as a whole) and what is wrong with it. */
export interface ConfigIssue {
  path: FieldPath;
  message: string;
  /** The command-line flag that set this field, when one did: the line names the flag, not the file. */
  flag?: string;
}

/** A field's dot-path as error lines name it (`byTarget.microvm.threshold`); `(top level)` for the file itself. */
export function dotPath(path: FieldPath): string {
  return path.length > 0 ? path.map(String).join('.') : '(top level)';
}

/** The error line of one problem (`file` absent: a check that does not know its file, such as a target's own). */
export function issueLine(file: string | undefined, issue: ConfigIssue): string {
  if (issue.flag !== undefined) return `${issue.flag} (overrides ${dotPath(issue.path)}): ${issue.message}`;
  return file === undefined
    ? `${dotPath(issue.path)}: ${issue.message}`
    : `${file}: ${dotPath(issue.path)}: ${issue.message}`;
}

/** What these lines need of a schema's issue (zod's; core imports no schema library). */
export interface SchemaIssue {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  keys?: readonly string[];
}

/**
 * A schema's issues as config issues under `under` (the path of the value it checked), an unknown key named by its
 * own path (`kill.bogus: unknown field`), not its parent's.
 */
export function schemaIssues(
  issues: readonly SchemaIssue[],
  under: FieldPath = [],
  unknownKey = 'unknown field (check the spelling)',
): ConfigIssue[] {
  return issues.flatMap((i) =>
    i.code === 'unrecognized_keys' && i.keys !== undefined
      ? i.keys.map((k) => ({ path: [...under, ...i.path, k], message: unknownKey }))
      : [{ path: [...under, ...i.path], message: i.message }],
  );
}

/**
 * Every problem of one config value: `header` (`scenario x.yaml is invalid`), then a line each, indented. A caller that
 * knows the file reads `issues` of a check that did not (a scenario's target options) and names it.
 */
export class ConfigIssuesError extends ConfigError {
  constructor(
    header: string,
    readonly issues: readonly ConfigIssue[],
    file?: string,
  ) {
    super(`${header}:\n${issues.map((i) => `  ${issueLine(file, i)}`).join('\n')}`);
  }
}

/** Throw a ConfigIssuesError of `issues` under `header` when there is any. */
export function throwIfIssues(header: string, issues: readonly ConfigIssue[], file?: string): void {
  if (issues.length > 0) throw new ConfigIssuesError(header, issues, file);
}
