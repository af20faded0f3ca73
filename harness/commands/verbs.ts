// Each verb's name, usage and one-line description: all `soak --help` needs, so cli.ts lists every verb without
// importing its module (a verb's module, and what it imports, loads only when that verb runs).

/** The verbs, in the order `soak --help` lists them. */
export const VERBS = {
  run: {
    command: 'run',
    describe:
      'Run a soak: boot a session, SIGKILL it at seeded random points, resume, verify; then report and judge the gates',
  },
  report: {
    command: 'report <run-dirs..>',
    describe:
      "Write the dated report reports/<yyyy-mm-dd>-<scenario>/ for run folders (several are reported as one sample); exits with its verdict's code (Exit codes, below)",
  },
  gates: {
    command: 'gates <run-dirs..>',
    describe: "Judge run folders against gates/NN-*.yaml; exits with the verdict's code (Exit codes, below)",
  },
  check: {
    command: 'check <run-dir>',
    describe:
      'Re-run the checker over the observations a run journaled; exit 0 all verdicts agree and none failed, 1 a verdict changed or the run has violations (these outrank the next), 2 no observations recorded (a journal older than observations), 3 bad input or a damaged journal (each protocol error named with its line)',
  },
  compare: {
    command: 'compare <run-a> <run-b>',
    describe: 'A/B test run B against baseline run A on downtime and checkpoint pause; exit 1 on a regression',
  },
  merge: {
    command: 'merge <run-dirs..>',
    describe:
      'Combine run folders (shards of one soak, or several nights) into one run folder; its statistics equal one run over the union',
  },
  store: {
    command: 'store <command>',
    describe: 'Inspect and maintain a checkpoint store: stats | verify | gc',
  },
  target: {
    command: 'target',
    describe: 'Targets: conformance kit (check) and the public protocol schemas (schemas)',
  },
  image: {
    command: 'image <command>',
    describe: 'Guest image of the microvm target: build, prune its cache; the workload agent alone: agent',
  },
  demo: {
    command: 'demo',
    describe:
      'Start one session and a live page (127.0.0.1, token in the URL): kill -9 it by hand and watch it resume verified',
  },
  watch: {
    command: 'watch <run-dir>',
    describe:
      'Serve a read-only live page for a running or finished soak (127.0.0.1, token in the URL); Ctrl-C ends it',
  },
} as const;

/** A verb's name (the first word after `soak`). */
export type VerbName = keyof typeof VERBS;
