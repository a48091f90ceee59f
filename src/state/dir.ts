// The state dir is trusted only when nobody else can write it (ssh's StrictModes): it is created 0700,
// and the bridge refuses to start when it is group/other-writable, owned by another user, or a symlink.
// Paths read from state files are used only when they are inside the state dir (or the run's workspace).
import { lstatSync, mkdirSync, realpathSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { ConfigError } from "../errors/index.js";

export function ensureStateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const problem = stateDirProblem(dir);
  if (problem)
    throw new ConfigError([
      {
        path: "stateDir",
        message: `${dir} ${problem}: anyone who can write it can make the bridge read or remove files; fix it (chmod 700 / chown) or choose another stateDir`,
      },
    ]);
}

/** Why the state dir cannot be trusted, or null. */
export function stateDirProblem(dir: string): string | null {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(dir);
  } catch (err) {
    return `cannot be read (${(err as Error).message})`;
  }
  if (st.isSymbolicLink()) return "is a symbolic link";
  if (!st.isDirectory()) return "is not a directory";
  if ((st.mode & 0o022) !== 0) return `is writable by ${st.mode & 0o020 ? "its group" : "others"} (mode ${(st.mode & 0o777).toString(8)})`;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return `is owned by uid ${st.uid}, not by this user (uid ${uid})`;
  return null;
}

/** True when `p` (resolved through symlinks as far as it exists) is `root` or below it. */
export function isInside(root: string, p: string): boolean {
  const real = (x: string): string => {
    try {
      return realpathSync(x);
    } catch {
      const parent = dirname(x);
      return parent === x ? x : resolve(real(parent), relative(parent, x));
    }
  };
  const r = real(resolve(root));
  const target = real(resolve(p));
  return target === r || target.startsWith(r + sep);
}
