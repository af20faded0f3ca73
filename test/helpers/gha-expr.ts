// The part of GitHub Actions' expression language deploy/ci/nightly-soak.yml uses, for the workflow player
// (gha-player.ts): `${{ ... }}` with dotted context paths, 'string' literals, ==, !=, &&, || and the status functions
// always(), success(), failure(). Anything else throws, naming the expression: a workflow that grows an expression
// the player cannot evaluate fails its test instead of being played wrongly.

/** The contexts an expression reads (github, inputs, matrix, needs, steps, env), as plain nested records. */
export type ExprContext = Record<string, unknown>;

/** What the status functions answer for the step or job being decided. */
export interface Status {
  /** Nothing before it failed (steps of this job, or the jobs it needs). */
  ok: boolean;
}

/** A context path's value ('' when absent, as GitHub gives an unset output). */
function lookup(ctx: ExprContext, dotted: string): unknown {
  let v: unknown = ctx;
  for (const key of dotted.split('.')) {
    if (v === null || typeof v !== 'object') return '';
    v = (v as Record<string, unknown>)[key];
  }
  return v ?? '';
}

/** One operand: a literal, a status function, or a context path. */
function operand(text: string, ctx: ExprContext, status: Status): unknown {
  const t = text.trim();
  if (/^'([^']|'')*'$/.test(t)) return t.slice(1, -1).replace(/''/g, "'");
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (t === 'true' || t === 'false') return t === 'true';
  if (t === 'always()') return true;
  if (t === 'success()') return status.ok;
  if (t === 'failure()') return !status.ok;
  if (/^[A-Za-z_][\w-]*(\.[\w-]+)*$/.test(t)) return lookup(ctx, t);
  throw new Error(`gha-expr: cannot evaluate '${t}' (the workflow player knows paths, literals, ==, !=, &&, ||)`);
}

/** The value of expression `expr` (no parentheses besides the status functions' own). */
export function evaluate(expr: string, ctx: ExprContext, status: Status): unknown {
  if (expr.includes('||')) return expr.split('||').some((e) => truthy(evaluate(e, ctx, status)));
  if (expr.includes('&&')) return expr.split('&&').every((e) => truthy(evaluate(e, ctx, status)));
  const cmp = /^(.*?)(==|!=)(.*)$/.exec(expr);
  if (cmp) {
    const [a, b] = [operand(cmp[1]!, ctx, status), operand(cmp[3]!, ctx, status)];
    const same = String(a).toLowerCase() === String(b).toLowerCase(); // GitHub compares strings ignoring case
    return cmp[2] === '==' ? same : !same;
  }
  return operand(expr, ctx, status);
}

/** GitHub's truthiness: false, 0, '' and null are false. */
export function truthy(v: unknown): boolean {
  return v !== false && v !== 0 && v !== '' && v !== null && v !== undefined;
}

/** `text` with each `${{ expr }}` replaced by its value. */
export function expand(text: string, ctx: ExprContext, status: Status = { ok: true }): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_m, e: string) => String(evaluate(e, ctx, status)));
}

/** Whether an `if:` condition holds: absent means success(); a bare expression or one wrapped in `${{ }}`. */
export function condition(cond: string | undefined, ctx: ExprContext, status: Status): boolean {
  if (cond === undefined) return status.ok;
  const expr = /^\s*\$\{\{(.*)\}\}\s*$/.exec(cond)?.[1] ?? cond;
  const usesStatus = /\b(always|success|failure|cancelled)\(\)/.test(expr);
  // GitHub adds success() && to a condition that names no status function
  return (usesStatus || status.ok) && truthy(evaluate(expr, ctx, status));
}
