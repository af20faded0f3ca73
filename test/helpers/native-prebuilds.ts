// The native addon this checkout already built (better-sqlite3's better_sqlite3.node), offered to the npm installs a
// test runs (a fresh clone's `npm ci`, the workflow's steps) as a local prebuild: prebuild-install takes it from
// `npm_config_better_sqlite3_local_prebuilds` instead of compiling SQLite again (about 2 minutes of both cores each,
// which pushed those tests past their timeouts on a loaded machine). The same binary `npm ci` built here, for the
// same Node ABI: what the install under test does with it (unpack, load) is unchanged.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './paths.js';

/** The environment that offers this checkout's built addon to an npm install, its tarball made in `dir` once. */
export function nativePrebuildEnv(dir: string): Record<string, string> {
  const pkg = path.join(repoRoot, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const tarball = path.join(dir, name);
  if (!existsSync(tarball)) {
    mkdirSync(dir, { recursive: true });
    execFileSync('tar', ['-czf', tarball, '-C', pkg, 'build/Release/better_sqlite3.node'], { timeout: 60_000 });
  }
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}
