// The exit code a command asks for; cli.ts is the only place that calls process.exit.
let code = 0;

export function setExit(c: number): void {
  code = c;
}

export function requestedExit(): number {
  return code;
}
