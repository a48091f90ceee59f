// The state dir is trusted only when nobody else can write it or any directory above it (ssh's
// StrictModes): it is created 0700, and the bridge refuses to start when it — or a parent on its real
// path — is group/other-writable (a sticky parent is fine when what lies below it on the path is
// ours: nobody else can rename or replace it), owned by another user (root's parents excepted), or when
// the state dir is a symlink. Paths read from state files are used only when they are inside the state
// dir (or the run's workspace): agent-files/contain.ts.
import { chmodSync, lstatSync, mkdirSync, realpathSync, type Stats } from "node:fs";
import { dirname, resolve } from "node:path";
import { ConfigError } from "../errors/index.js";

export function ensureStateDir(dir: string): void {
  // The directories above it that are made here: root's passable by the seat's user (a unit's User=, the
  // agents' uid) as systemd's StateDirectory= makes /var/lib/hermes-bridge, whatever the umask; any other
  // user's its own.
  const root = process.getuid?.() === 0;
  const parent = dirname(resolve(dir));
  const first = mkdirSync(parent, { recursive: true, mode: root ? 0o755 : 0o700 });
  if (first !== undefined && root) for (let p = parent; p.length >= first.length; p = dirname(p)) chmodSync(p, 0o755);
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

const writableByOthers = (st: Stats) => (st.mode & 0o022) !== 0;
const sticky = (st: Stats) => (st.mode & 0o1000) !== 0;
const who = (st: Stats) => (st.mode & 0o020 ? "its group" : "others");

/** Why the state dir cannot be trusted, or null. */
export function stateDirProblem(dir: string): string | null {
  let st: Stats;
  try {
    st = lstatSync(dir);
  } catch (err) {
    return `cannot be read (${(err as Error).message})`;
  }
  if (st.isSymbolicLink()) return "is a symbolic link";
  if (!st.isDirectory()) return "is not a directory";
  if (writableByOthers(st)) return `is writable by ${who(st)} (mode ${(st.mode & 0o777).toString(8)})`;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return `is owned by uid ${st.uid}, not by this user (uid ${uid})`;
  return parentProblem(dir, uid);
}

/** Every directory above the state dir (on its real path): writable only by us or root, or sticky above something of ours. */
function parentProblem(dir: string, uid: number | undefined): string | null {
  let child = realpathSync(resolve(dir));
  let childSt = lstatSync(child);
  for (let p = dirname(child); ; p = dirname(p)) {
    const st = lstatSync(p);
    if (uid !== undefined && st.uid !== uid && st.uid !== 0) return `has a parent directory ${p} owned by uid ${st.uid} (neither this user nor root)`;
    if (writableByOthers(st)) {
      const safeSticky = sticky(st) && (uid === undefined || childSt.uid === uid);
      if (!safeSticky)
        return `has a parent directory ${p} that is writable by ${who(st)} (mode ${(st.mode & 0o7777).toString(8)}${sticky(st) ? ", sticky, but " + child + " is not ours" : ""})`;
    }
    if (dirname(p) === p) return null;
    child = p;
    childSt = st;
  }
}

/**
 * A bridge running as root runs its agents as another uid, and bubblewrap — started as that uid — must
 * pass the state dir to mount a run's dir (or a checkout) in the jail: the state dir and those entries
 * become 0711 (passable, never listable, never writable by others: every file in them stays 0600).
 */
export function passableStateDir(dir: string, entries: readonly string[]): void {
  for (const p of [dir, ...entries]) {
    mkdirSync(p, { recursive: true, mode: 0o700 });
    chmodSync(p, 0o711);
  }
}
