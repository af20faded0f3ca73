// The agent's long-running tool process (process target): keeps its own state (a digest chain) across commands.
// Protocol on stdin/stdout, one line each: "step N" -> "ok N <digest>"; "state" -> "state N <digest>";
// "set N <digest>" -> "state N <digest>" (a tool pre-started for a warm standby is given the restored state).
import { createInterface } from 'node:readline';
import { nextLink, TOOL_SEED } from '../../check/workload.js';

let step = Number(process.argv[2] ?? 0);
let digest = process.argv[3] ?? TOOL_SEED;

const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const parts = line.split(' ');
  const [cmd, arg] = parts;
  if (cmd === 'step') {
    const n = Number(arg);
    if (n !== step + 1) {
      process.stdout.write(`error expected step ${step + 1}, got ${n}\n`);
      return;
    }
    step = n;
    digest = nextLink(digest, step);
    process.stdout.write(`ok ${step} ${digest}\n`);
  } else if (cmd === 'set' && parts[2] !== undefined) {
    step = Number(arg);
    digest = parts[2];
    process.stdout.write(`state ${step} ${digest}\n`);
  } else if (cmd === 'state') {
    process.stdout.write(`state ${step} ${digest}\n`);
  } else {
    process.stdout.write(`error unknown command ${JSON.stringify(line)}\n`);
  }
});
rl.on('close', () => process.exit(0));
