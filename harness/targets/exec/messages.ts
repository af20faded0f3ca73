// The public target protocol, version 1: every NDJSON message between the session host and an adapter, as zod schemas
// (the one home of the wire format; schemas/target-protocol/*.json are generated from these by `soak target schemas`).
import { z } from 'zod';
import { MATRIX_ONLY, STATE_CLASS_IDS } from '../../check/survival.js';
import { strictJsonSchema } from '../../core/json-schema.js';

/** The protocol version this host speaks; an adapter answering `describe` with another is refused. */
export const PROTOCOL_VERSION = 1;

const id = z.number().int().nonnegative().describe('request id; the reply carries the same id');
const part = z.object({ step: z.number().int().nonnegative(), digest: z.string().regex(/^[0-9a-f]{64}$/) }).strict();

/** The effect plan (docs/effects.md), on boot and restore only when the scenario enables effects and the adapter can. */
const effectsPlan = z
  .object({
    ledger: z
      .string()
      .regex(/^127\.0\.0\.1:\d{1,5}$/)
      .describe("the run's effect ledger, host:port on the host's loopback"),
    seed: z.number().int().describe("the run's seed: which steps emit effects (docs/effects.md)"),
    everySteps: z.number().int().positive().describe('about one effect step in this many'),
  })
  .strict()
  .optional()
  .describe("present only when effects are on: the token is in the adapter's environment, SOAK_EFFECT_LEDGER_TOKEN");
const count = z.number().int().nonnegative();

/** The guest-state probe (docs/what-survives.md), on boot and restore only when asked for and the adapter can. */
const probePlan = z
  .object({ binary: z.string().describe('absolute path of the static probe binary to run inside the sandbox') })
  .strict()
  .optional()
  .describe('present only with `soak target check --matrix`: run `probe setup` after boot, examine after restore');

/** Host -> adapter: requests (each answered by exactly one `result` or `error` with its id) and one notification. */
export const hostRequests = {
  describe: z
    .object({
      type: z.literal('describe'),
      id,
      protocolVersion: z.literal(PROTOCOL_VERSION),
      options: z.record(z.string(), z.unknown()).describe("the scenario's adapterOptions, as written"),
    })
    .strict()
    .describe('First message: the adapter checks its options and says what it is. No process may start yet.'),
  boot: z
    .object({
      type: z.literal('boot'),
      id,
      workDir: z.string().describe('private scratch folder of this host; gone after the host'),
      sessionDir: z.string().describe('folder that survives host restarts within one session'),
      stepMs: z.number().positive().describe('workload step interval'),
      effects: effectsPlan,
      probe: probePlan,
    })
    .strict()
    .describe('Fresh boot: new workspace, new boot nonce. Reply once the agent runs (a full heartbeat follows).'),
  checkpoint: z
    .object({
      type: z.literal('checkpoint'),
      id,
      dir: z.string().describe('empty folder: write the parts here as files; the host stores them in one commit'),
      skewMs: z
        .number()
        .nonnegative()
        .describe('negative control: capture the file system, then memory this much later'),
    })
    .strict()
    .describe('Freeze, capture, unfreeze. Reply with the step captured and the pause.'),
  restore: z
    .object({
      type: z.literal('restore'),
      id,
      dir: z.string().describe("the checkpoint's parts, materialised as files under their names"),
      seq: z.number().int().nonnegative(),
      step: z.number().int().nonnegative(),
      workDir: z.string(),
      sessionDir: z.string(),
      stepMs: z.number().positive(),
      effects: effectsPlan,
      probe: probePlan,
    })
    .strict()
    .describe('Rebuild the session from the parts in dir and resume it. Reply once the agent runs.'),
  full: z
    .object({ type: z.literal('full') })
    .strict()
    .describe('Notification (no reply): send a full heartbeat as soon as possible.'),
  destroy: z
    .object({ type: z.literal('destroy'), id })
    .strict()
    .describe('Stop everything the adapter started and remove its scratch files; reply, then exit.'),
} as const;

/** Most entries a kill list may hold (pids and groups each): the host proves every one by walking /proc. */
const KILL_LIST_MAX = 1024;

/** A process id in a kill list: 0, -1 and other negative ids would signal whole groups (or every process). */
const processId = z
  .number()
  .int()
  .positive({ error: 'not a positive process id (0, -1 and negative ids are never killed)' });

const info = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

/** Adapter -> host. */
export const adapterMessages = {
  result: z
    .object({
      type: z.literal('result'),
      id,
      protocolVersion: z.number().int().optional().describe('describe only: the version the adapter speaks'),
      runtime: z
        .string()
        .regex(/^[a-z0-9][a-z0-9-]*$/)
        .optional()
        .describe(
          "describe only: the runtime's short lower-case name (e.g. gvisor); gate files' byTarget may key on it",
        ),
      info: info.optional().describe('describe only: runtime, version, checkpoint kind... (into the report)'),
      limitations: z
        .array(z.string())
        .optional()
        .describe("describe only: what the runtime's checkpoint does not cover"),
      effects: z
        .object({ reach: z.enum(['loopback', 'relay']) })
        .strict()
        .optional()
        .describe(
          "describe only: how the workload reaches the run's effect ledger (docs/effects.md): loopback, it opens the " +
            "host's 127.0.0.1 itself; relay, the adapter calls the ledger for it",
        ),
      probe: z
        .object({ runs: z.literal('binary') })
        .strict()
        .optional()
        .describe(
          'describe only: the adapter runs the probe binary it is given inside its sandbox (docs/what-survives.md)',
        ),
      promises: z
        // not the later clock readings: a soak reads the wall clock once (check/promises.ts)
        .array(z.enum(STATE_CLASS_IDS.filter((c) => !MATRIX_ONLY.includes(c)) as [string, ...string[]]))
        .optional()
        .describe('describe only: the classes of guest state the runtime documents as kept across a resume (gate 10)'),
      step: z
        .number()
        .int()
        .nonnegative()
        .optional()
        .describe('checkpoint only: the step the captured state describes'),
      pauseMs: z.number().nonnegative().optional().describe('checkpoint only: how long the workload was frozen'),
      parts: z
        .array(z.string().min(1))
        .optional()
        .describe('checkpoint only: files written under dir (relative paths), in store order'),
      meta: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
    })
    .strict()
    .describe('Success reply to the request with this id.'),
  error: z
    .object({ type: z.literal('error'), id: id.optional(), message: z.string() })
    .strict()
    .describe('Failure reply to the request with this id (or, without id, a fatal adapter error).'),
  hb: z
    .object({
      type: z.literal('hb'),
      step: z.number().int().nonnegative(),
      nonce: z.string().min(1).describe('boot nonce: new at every fresh boot, carried by every restore'),
      full: z.boolean(),
      fs: part.optional(),
      mem: part.optional(),
      tool: part.optional(),
      effects: z
        .object({
          through: count,
          acked: z.object({ 'step-key': count, 'random-key': count, 'no-key': count }).strict(),
          incarnation: z.string().regex(/^[A-Za-z0-9:_-]{1,128}$/),
        })
        .strict()
        .optional()
        .describe(
          'full heartbeats with effects on: every effect acknowledged through step `through` (docs/effects.md)',
        ),
    })
    .strict()
    .describe('Heartbeat (the workload contract, README "Workload"): light after each step, full on request.'),
  pids: z
    .object({
      type: z.literal('pids'),
      pids: z
        .array(processId)
        .max(KILL_LIST_MAX)
        .describe("processes outside the host process group, each a descendant of the adapter's process"),
      groups: z
        .array(processId)
        .max(KILL_LIST_MAX)
        .default([])
        .describe(
          "process groups to kill whole, each named by its leader's PID, a descendant of the adapter's process",
        ),
    })
    .strict()
    .describe('What a SIGKILL of the session must hit besides the host process group; replaces any earlier list.'),
  probe: z
    .object({ type: z.literal('probe'), line: z.record(z.string(), z.unknown()) })
    .strict()
    .describe(
      'A line the guest-state probe printed (ready, examined, error), relayed as it is (docs/what-survives.md).',
    ),
  log: z
    .object({ type: z.literal('log'), message: z.string() })
    .strict()
    .describe('A line for the host log.'),
} as const;

export type HostRequest = {
  [K in keyof typeof hostRequests]: z.infer<(typeof hostRequests)[K]>;
}[keyof typeof hostRequests];
export type AdapterMessage = {
  [K in keyof typeof adapterMessages]: z.infer<(typeof adapterMessages)[K]>;
}[keyof typeof adapterMessages];

const adapterUnion = z.discriminatedUnion('type', Object.values(adapterMessages) as never);

/** A value as a problem quotes it: JSON, cut at 40 characters (the caller escapes it for a terminal). */
function show(x: unknown): string {
  const json = (JSON.stringify(x) as string | undefined) ?? String(x);
  return json.length > 40 ? `${json.slice(0, 40)}...` : json;
}

/** Validate one line from an adapter; a message naming the problem on failure. */
export function parseAdapterMessage(raw: unknown): { ok: true; msg: AdapterMessage } | { ok: false; problem: string } {
  const r = adapterUnion.safeParse(raw, { reportInput: true });
  if (r.success) return { ok: true, msg: r.data as AdapterMessage };
  const issue = r.error.issues[0];
  const field = (issue?.path ?? []).map((k, i) =>
    typeof k === 'number' ? `[${k}]` : `${i > 0 ? '.' : ''}${String(k)}`,
  );
  const at = field.join('') || '(message)';
  const value = issue !== undefined && 'input' in issue && issue.input !== undefined ? ` = ${show(issue.input)}` : '';
  return { ok: false, problem: `${at}${value}: ${issue?.message ?? 'invalid'}` };
}

/** JSON Schema (draft 2020-12) of every message, by file name. */
export function protocolJsonSchemas(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(hostRequests)) out[`host-${name}.json`] = strictJsonSchema(s);
  for (const [name, s] of Object.entries(adapterMessages))
    out[`adapter-${name}.json`] = strictJsonSchema(s, { io: 'input' });
  return out;
}
