// A template snapshot's files are checked before any session starts from them. template.json records each file's
// SHA-256 when the template is built; a process hashes a file once (a standby during its warm-up, off the measured path)
// and afterwards only confirms it has not changed since (dev, inode, size, mtime, ctime: a write moves the ctime), once
// more before the guest runs on it. A damaged cache is a fault of the machine or the harness, never of the system under
// test: it stops the session with an error naming the file, instead of starting guests from bytes nobody built.
import { TargetError } from '../../core/errors.js';
import { digestRefusal, identityOf } from '../guest/files.js';
import type { TemplateSnapshot } from './template.js';

/** Files this process hashed and found right, with the identity they had then. */
const verified = new Map<string, string>();

/** The template's files and the digest template.json records for each. */
function filesOf(t: TemplateSnapshot): Array<[file: string, digest: string]> {
  const out: Array<[string, string]> = [[t.ram, t.sha256.ram]];
  if (t.disk !== undefined) out.push([t.disk, t.sha256.disk ?? '']);
  return out;
}

/** What a user does about a damaged template. */
const remedy = (t: TemplateSnapshot): string =>
  `remove ${t.dir} and run again (\`soak image build --template\` rebuilds it ahead)`;

/**
 * Check each of the template's files against its recorded SHA-256 (hashed once per process; afterwards a file whose
 * identity did not change is not hashed again). Throws TargetError naming the file when one differs or is missing.
 */
export async function verifyTemplate(t: TemplateSnapshot): Promise<void> {
  for (const [file, digest] of filesOf(t)) {
    const before = await identityOf(file);
    if (before === 'gone') throw new TargetError(`the template snapshot's ${file} is missing: ${remedy(t)}`);
    if (verified.get(file) === before) continue;
    const why = await digestRefusal(file, digest, before);
    if (why !== undefined)
      throw new TargetError(`the template snapshot's ${file} ${REFUSED[why] ?? why}: ${remedy(t)}`);
    verified.set(file, before);
  }
}

/** digestRefusal's reasons as a template error says them. */
const REFUSED: Record<string, string> = {
  unreadable: 'cannot be read',
  'digest mismatch': 'fails its SHA-256 check (damaged cache)',
  'changed while verified': 'changed while it was checked',
};

/** Throws unless every template file is as it was when this process checked it (call before the guest runs). */
export async function assertTemplateUnchanged(t: TemplateSnapshot): Promise<void> {
  for (const [file] of filesOf(t)) {
    const now = await identityOf(file);
    if (verified.get(file) !== now)
      throw new TargetError(`the template snapshot's ${file} changed after its check: not starting a session on it`);
  }
}
