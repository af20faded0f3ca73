// Stand-ins for actions/upload-artifact and actions/download-artifact (v4) in the workflow player (gha-player.ts):
// an artifact is a folder under the play's root. Upload takes the `path:` lines (files, folders, globs; `!` lines
// exclude), stores the files relative to the paths' least common ancestor and follows symlinks (a `latest` link
// arrives as a copy, as on GitHub); download copies every artifact matching `name` or `pattern` into `path`.
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** A glob (`*`, `**`, `?`) as a regular expression over a relative path with `/` separators. */
function globRe(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Every file under `dir` (relative, `/`-separated), following symlinks; .git and node_modules left out. */
function filesUnder(dir: string, rel = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    if (name === '.git' || name === 'node_modules') return [];
    const abs = path.join(dir, name);
    const r = rel === '' ? name : `${rel}/${name}`;
    return statSync(abs).isDirectory() ? filesUnder(abs, r) : [r];
  });
}

/** The folder part of a pattern before its first glob character. */
function fixedDir(pattern: string): string {
  const cut = pattern.search(/[*?]/);
  const fixed = cut < 0 ? pattern : pattern.slice(0, cut);
  return cut < 0 && !fixed.endsWith('/') ? path.posix.dirname(fixed) : fixed.replace(/\/[^/]*$/, '');
}

/** Upload: the files `paths` (the step's `path:` lines) name in `workspace`, into `store`/`name`; how many. */
export function uploadArtifact(workspace: string, store: string, name: string, paths: string): number {
  const lines = paths
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const include = lines.filter((l) => !l.startsWith('!'));
  const exclude = lines.filter((l) => l.startsWith('!')).map((l) => globRe(l.slice(1)));
  const inside = (f: string, p: string): boolean =>
    /[*?]/.test(p) ? globRe(p).test(f) : f === p || f.startsWith(`${p.replace(/\/$/, '')}/`);
  const dirs = include.map(fixedDir);
  let root = dirs[0] ?? '';
  for (const d of dirs) while (root !== '' && d !== root && !d.startsWith(`${root}/`)) root = path.posix.dirname(root);
  root = root === '.' ? '' : root;
  const files = filesUnder(workspace).filter(
    (f) => include.some((p) => inside(f, p)) && !exclude.some((x) => x.test(f)),
  );
  for (const f of files) {
    const dest = path.join(store, name, root === '' ? f : path.posix.relative(root, f));
    mkdirSync(path.dirname(dest), { recursive: true });
    cpSync(path.join(workspace, f), dest, { dereference: true });
  }
  return files.length;
}

/** Download: every artifact in `store` named `name` or matching `pattern`, into `workspace`/`dest`; their names. */
export function downloadArtifacts(
  store: string,
  workspace: string,
  opts: { name?: string; pattern?: string; mergeMultiple?: boolean; path?: string },
): string[] {
  const names = existsSync(store) ? readdirSync(store) : [];
  const wanted = names.filter((n) => (opts.name !== undefined ? n === opts.name : globRe(opts.pattern ?? '*').test(n)));
  const dest = path.join(workspace, opts.path ?? '.');
  for (const n of wanted) {
    const to = opts.name !== undefined || opts.mergeMultiple === true ? dest : path.join(dest, n);
    mkdirSync(to, { recursive: true });
    cpSync(path.join(store, n), to, { recursive: true });
  }
  return wanted;
}
