// Adapter faults at the protocol level, on real adapter processes (tiny scripts written here): a line that is not
// JSON, an invalid message, a reply to no request, a crash, no answer to describe, another protocol version and a
// malformed checkpoint reply are each an AdapterError (exit 5) naming the adapter, the request and the first bytes,
// escaped; the fault reaches the onFault listeners with no request pending. Not adapter faults (negative controls): an
// `error` reply and a boot that never answers (TargetError, as before).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AdapterError, EXIT, TargetError } from '../../../harness/core/errors.js';
import { AdapterProcess } from '../../../harness/targets/exec/adapter-process.js';
import { subreaperLauncher } from '../../../harness/targets/exec/launcher.js';
import { createExecTarget } from '../../../harness/targets/exec/target.js';
import type { CheckpointSink } from '../../../harness/store/types.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-adapter-faults-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** An adapter script: `answer(req)` is JS source run per request line (send with `send(obj)` or `out(text)`). */
function adapter(name: string, answer: string): string {
  const file = path.join(tmp, `${name}.mjs`);
  writeFileSync(
    file,
    `import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const out = (t) => process.stdout.write(t + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => { const req = JSON.parse(line); ${answer} });
`,
  );
  return file;
}

const DESCRIBE = `if (req.type === 'describe') return send({ type: 'result', id: req.id, protocolVersion: 1 });`;

/** Start `file` and send `type`; what the request rejected with (or 'resolved'). */
async function outcome(file: string, type: 'describe' | 'boot', timeoutMs = 20_000): Promise<Error | 'resolved'> {
  const a = new AdapterProcess(file, await subreaperLauncher(), 'ignore');
  try {
    if (type === 'boot') await a.request({ type: 'describe', protocolVersion: 1, options: {} });
    await a.request(
      type === 'boot'
        ? { type: 'boot', workDir: tmp, sessionDir: tmp, stepMs: 5 }
        : { type: 'describe', protocolVersion: 1, options: {} },
      timeoutMs,
    );
    return 'resolved';
  } catch (err) {
    return err as Error;
  } finally {
    await a.kill();
  }
}

describe.concurrent('adapter faults: AdapterError, exit 5, the adapter and the request named', () => {
  it('a line that is not JSON: its first bytes quoted, an escape sequence and a bidi override made visible', async () => {
    const file = adapter('garbage', `out('oops \\u001b[2J\\u202Eevil ' + 'x'.repeat(300));`);
    const err = await outcome(file, 'describe');
    expect(err).toBeInstanceOf(AdapterError);
    const e = err as AdapterError;
    expect(e.exitCode).toBe(EXIT.adapterFault);
    expect(e.message).toMatch(
      new RegExp(
        `^adapter fault: adapter ${file} \\(pid \\d+\\), request describe #1: a line that is not a JSON object: "oops \\\\u001b\\[2J\\[U\\+202E\\]evil x+"…$`,
      ),
    );
    expect(e.message).not.toContain('\u001b');
    expect(e.message).not.toContain('\u202e');
  });

  it('an invalid message: the field and the value named', async () => {
    const err = await outcome(
      adapter('invalid', `${DESCRIBE} send({ type: 'hb', step: -3, nonce: 'n', full: false });`),
      'boot',
    );
    expect(err).toBeInstanceOf(AdapterError);
    expect((err as Error).message).toMatch(
      /request boot #2: an invalid "hb" message \(step = -3: .*\): "\{\\"type\\":\\"hb\\",\\"step\\":-3/,
    );
  });

  it('a reply to a request that was never made', async () => {
    const err = await outcome(adapter('stray', `send({ type: 'result', id: 99 });`), 'describe');
    expect((err as Error).message).toMatch(/request describe #1: a result for id 99, which no pending request has/);
  });

  it('an adapter that exits mid-request', async () => {
    const err = await outcome(adapter('crash', `${DESCRIBE} process.exit(3);`), 'boot');
    expect(err).toBeInstanceOf(AdapterError);
    expect((err as Error).message).toMatch(/request boot #2: exited \(exit code 3, signal null\)$/);
  });

  it('no answer to describe within its bound', async () => {
    const err = await outcome(adapter('mute', ''), 'describe', 300);
    expect(err).toBeInstanceOf(AdapterError);
    expect((err as Error).message).toMatch(/request describe #1: no reply within 300 ms$/);
  });

  it('another protocol version', async () => {
    const file = adapter('v2', `send({ type: 'result', id: req.id, protocolVersion: 2 });`);
    const err = await createExecTarget({ workDir: tmp, sessionDir: tmp, stepMs: 5, options: { adapter: file } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AdapterError);
    expect((err as Error).message).toMatch(
      /request describe #1 was answered: speaks target protocol version 2; this host speaks 1$/,
    );
  });

  it('a checkpoint reply without parts, and one naming a part outside its folder', async () => {
    const sink = { putFile: () => Promise.resolve() } as unknown as CheckpointSink;
    for (const [name, reply, why] of [
      ['noparts', `{ step: 1, pauseMs: 1 }`, /a checkpoint reply needs step, pauseMs and parts: "\{/],
      [
        'outside',
        `{ step: 1, pauseMs: 1, parts: ['../../etc/passwd'] }`,
        /a checkpoint part outside its folder \("\.\.\/\.\.\/etc\/passwd"\)/,
      ],
    ] as const) {
      const file = adapter(name, `${DESCRIBE} send({ type: 'result', id: req.id, ...${reply} });`);
      const t = await createExecTarget({
        workDir: path.join(tmp, name),
        sessionDir: tmp,
        stepMs: 5,
        options: { adapter: file },
      });
      const faults: Error[] = [];
      t.onFault?.((e) => faults.push(e));
      const err = await t.checkpoint(sink, { skewMs: 0 }).catch((e: unknown) => e);
      expect(err, name).toBeInstanceOf(AdapterError);
      expect((err as Error).message, name).toMatch(why);
      expect(faults, 'told to the fault listeners too (the host dies of it)').toHaveLength(1);
      await t.destroy().catch(() => {});
    }
  });

  it('a fault with no request pending reaches the onFault listeners', async () => {
    const file = adapter(
      'late',
      `${DESCRIBE} send({ type: 'result', id: req.id }); setTimeout(() => out('late garbage'), 50);`,
    );
    const a = new AdapterProcess(file, await subreaperLauncher(), 'ignore');
    const fault = new Promise<AdapterError>((r) => a.onFault(r));
    await a.request({ type: 'describe', protocolVersion: 1, options: {} });
    await a.request({ type: 'boot', workDir: tmp, sessionDir: tmp, stepMs: 5 });
    expect((await fault).message).toMatch(
      /after request boot #2 was answered: a line that is not a JSON object: "late garbage"$/,
    );
    await a.kill();
  });
});

describe.concurrent('not adapter faults (negative controls): the runtime failed, or a boot is slow', () => {
  it("an error reply is the runtime's failure: a TargetError (exit 4), as before", async () => {
    const err = await outcome(
      adapter('err', `${DESCRIBE} send({ type: 'error', id: req.id, message: 'runsc failed' });`),
      'boot',
    );
    expect(err).toBeInstanceOf(TargetError);
    expect(err).not.toBeInstanceOf(AdapterError);
    expect((err as Error).message).toMatch(/runsc failed$/);
  });

  it('a boot that never answers stays a TargetError timeout (another part of the harness judges hung sessions)', async () => {
    const err = await outcome(adapter('slowboot', DESCRIBE), 'boot', 300);
    expect(err).toBeInstanceOf(TargetError);
    expect(err).not.toBeInstanceOf(AdapterError);
  });
});
