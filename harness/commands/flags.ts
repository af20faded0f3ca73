// Range checks of numeric command-line flags, shared by the verbs that take them: each out-of-range value is a
// one-line usage error naming the flag (exit 3), checked before the verb starts any work. Flags that override a
// scenario field (--cycles, --budget-s, ...) are checked by the scenario's schema instead (scenario/scenario.ts).
import { InputError } from '../core/errors.js';

/** `value` of `flag` if it is a whole number in [min, max]; else a usage error saying the range (`hint`: its meaning). */
export function wholeFlag(flag: string, value: number, min: number, max: number, hint = ''): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new InputError(`${flag}: expected a whole number from ${min} to ${max}${hint}, got ${String(value)}`);
  return value;
}

/** `value` of `flag` if it is a finite number in [min, max]; else a usage error saying the range. */
export function numberFlag(flag: string, value: number, min: number, max: number): number {
  if (!Number.isFinite(value) || value < min || value > max)
    throw new InputError(`${flag}: expected a number from ${min} to ${max}, got ${String(value)}`);
  return value;
}

/** --port of a live page: 0 (a random free port) to 65535. */
export function portFlag(value: number): number {
  return wholeFlag('--port', value, 0, 65_535, ' (0: a random free port)');
}
