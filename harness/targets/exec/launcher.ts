// The subreaper launcher an adapter runs under (native/subreaper/subreaper.c): built once per source hash with the
// harness's other C programs (core/native-build.ts). Under it, a process the adapter detaches (gVisor's sandbox and
// gofer) stays its descendant, so the host can prove a kill list; without a C compiler the adapter runs bare and a
// detached process cannot be proven: the refusal says why.
import { buildNative } from '../../core/native-build.js';

/** The launcher's binary, or null with why there is none. */
export type Launcher = { bin: string; why: null } | { bin: null; why: string };

let built: Promise<Launcher> | null = null;

/** Build (first call) or find the launcher; never throws. */
export function subreaperLauncher(): Promise<Launcher> {
  built ??= buildNative('subreaper', ['subreaper.c']).then(
    (bin): Launcher => ({ bin, why: null }),
    (err: unknown): Launcher => ({
      bin: null,
      why: `no subreaper launcher (${err instanceof Error ? err.message : String(err)}; install gcc), so a process the adapter detaches cannot be proven its own`,
    }),
  );
  return built;
}
