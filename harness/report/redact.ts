// Defence in depth for public reports: mask anything in the tested-environment facts that looks like a credential.
import type { Environment } from '../core/environment.js';

/** What a masked value is replaced with. */
export const REDACTED = '[redacted]';

const SECRET_PATTERNS: readonly RegExp[] = [
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{6,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{16,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{8,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\b((?:api[_-]?key|token|secret|password|passwd|authorization)\s*[=:]\s*)\S+/gi,
  /\/\/[^/\s:@]+:[^/\s@]+@/g,
];

/** Mask credential-looking substrings (API keys, tokens, JWTs, private keys, key=value secrets, user:pass@ in URLs). */
export function redactText(text: string): string {
  let out = text;
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (match, prefix: unknown) =>
      typeof prefix === 'string' && match.startsWith(prefix) ? `${prefix}${REDACTED}` : REDACTED,
    );
  }
  return out;
}

/** A copy of the environment with every string field and target fact passed through redactText. */
export function redactEnvironment(env: Environment): Environment {
  const target: Environment['target'] = {};
  for (const [key, value] of Object.entries(env.target))
    target[redactText(key)] = typeof value === 'string' ? redactText(value) : value;
  return {
    ...env,
    os: redactText(env.os),
    arch: redactText(env.arch),
    cpuModel: redactText(env.cpuModel),
    kernel: redactText(env.kernel),
    ...(env.kernelBuild !== undefined ? { kernelBuild: redactText(env.kernelBuild) } : {}),
    ...(env.virtualization !== undefined ? { virtualization: redactText(env.virtualization) } : {}),
    node: redactText(env.node),
    harnessVersion: redactText(env.harnessVersion),
    gitCommit: redactText(env.gitCommit),
    target,
  };
}
