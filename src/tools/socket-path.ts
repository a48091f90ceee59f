// Where a run's task-tools socket lives: a private (0700) directory with a random name under
// $XDG_RUNTIME_DIR or the system temp dir, never under the state dir — a unix socket path must stay
// below the kernel's 107-byte limit whatever the state dir is.
import { lstatSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";

/** sun_path is 108 bytes including the terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = 107;

export function socketBase(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg) {
    try {
      const st = lstatSync(xdg);
      if (st.isDirectory() && (st.mode & 0o077) === 0 && st.uid === process.getuid?.()) return xdg;
    } catch {
      // fall back to the temp dir
    }
  }
  return tmpdir();
}

/** A fresh socket path for one run (its directory is created 0700). */
export function newSocketPath(env: NodeJS.ProcessEnv): string {
  const dir = mkdtempSync(join(socketBase(env), "hkb-"));
  return join(dir, "s");
}

/** True for a path this module made (restart recovery serves only such paths again). */
export function isRunSocketPath(p: string): boolean {
  return basename(p) === "s" && /^hkb-[A-Za-z0-9]{6}$/.test(basename(dirname(p)));
}

/** Re-creates the private directory of a recorded socket path (after a reboot cleaned /tmp). */
export function ensureSocketDir(p: string): void {
  mkdirSync(dirname(p), { recursive: true, mode: 0o700 });
}

export function removeSocketDir(p: string): void {
  if (isRunSocketPath(p)) rmSync(dirname(p), { recursive: true, force: true });
}
