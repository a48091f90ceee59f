// The host's registry of workspaces handed over (one per bridge user: a root bridge and a plain-user bridge
// of one host do not share it): one file per workspace, named by the device and inode of its root, with
// its path (for messages), the inodes of its parents (what nests with it), the processes whose runs use it
// (pid, start time and seat — the seat's state dir) and the hand-back record its hand-over kept. Read and
// changed only under the registry's lock (host-lock.ts), which the claim holds from its check through the
// hand-over and the last run holds through the give-back. An entry none of whose processes lives is a
// hand-back to settle: whoever comes next settles it (jail/live.ts). The folder is this user's alone — a
// record says what the give-back chowns, so one anyone else could write is refused.
import { mkdir, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { PermanentError } from "../errors/index.js";
import { replaceWith } from "../state/atomic.js";
import { withHostLock } from "../agent-files/host-lock.js";
import type { HandbackRecord } from "../agent-files/owner.js";

/** The host folder a bridge user's shared state lives in: root's /var/cache, else the user's cache dir (XDG_CACHE_HOME). */
export function hostCacheDir(env: NodeJS.ProcessEnv, root = process.getuid?.() === 0): string {
  if (root) return "/var/cache/hermes-bridge";
  const base = env.XDG_CACHE_HOME?.startsWith("/") ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(base, "hermes-bridge");
}

/** Where this user's registry of workspaces handed over lives on this host. */
export const defaultWorkspaceRegistry = (env: NodeJS.ProcessEnv, root?: boolean): string => join(hostCacheDir(env, root), "workspaces");

/** A process using a workspace: its pid and start (a pid the kernel gave again is another process), and its seat. */
export interface RegisteredUser {
  pid: number;
  /** The process's start, in clock ticks since boot (/proc/<pid>/stat). */
  start: string;
  /** The seat's state dir (for messages). */
  seat: string;
}

export interface RegistryEntry {
  /** `dev:ino` of the workspace's root. */
  key: string;
  path: string;
  /** The inodes of the workspace and each of its parents, the workspace's first. */
  line: string[];
  users: RegisteredUser[];
  /** What the hand-over changed (null: nothing to give back). */
  record: HandbackRecord | null;
}

/** The registry's folder or a file of it is not what it must be. */
export class RegistryUnusable extends PermanentError {
  constructor(
    readonly dir: string,
    why: string,
    cause?: unknown,
  ) {
    super("workspace_registry", `the host's registry of workspaces handed over, ${dir}, ${why}`, cause === undefined ? undefined : { cause });
  }
}

/** The start time of `pid` (null: no such process, or one that has ended — a zombie). */
export async function startOf(pid: number): Promise<string | null> {
  const text = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  // The fields after the command's name (which may hold anything, ")" included): state is the 3rd, start the 22nd.
  const rest = text?.slice(text.lastIndexOf(")") + 2).split(" ");
  if (!rest || rest[0] === "Z" || rest[0] === "X") return null;
  return rest[19] ?? null;
}

let self: Promise<RegisteredUser> | null = null;
/** This process as a user of a workspace of `seat`. */
export const me = async (seat: string): Promise<RegisteredUser> => {
  self ??= startOf(process.pid).then((start) => ({ pid: process.pid, start: start ?? "?", seat: "" }));
  return { ...(await self), seat };
};

export const alive = async (u: RegisteredUser): Promise<boolean> => (await startOf(u.pid)) === u.start;
export const sameProcess = (a: RegisteredUser, b: RegisteredUser) => a.pid === b.pid && a.start === b.start;

const fileOf = (dir: string, key: string) => join(dir, `${key.replace(/[^0-9]/g, "-")}.json`);

/** The registry of `dir`, open while its lock is held. */
export class WorkspaceRegistry {
  private constructor(readonly dir: string) {}

  /** `f` with the registry, under its lock (the folder made, and checked to be this user's alone). */
  static async locked<T>(dir: string, f: (r: WorkspaceRegistry) => Promise<T>, o: { maxWaitMs?: number; what?: string } = {}): Promise<T> {
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new RegistryUnusable(dir, `cannot be made: ${(err as Error).message}`, err);
    }
    const st = await stat(dir);
    if (st.uid !== process.getuid?.() || (st.mode & 0o022) !== 0)
      throw new RegistryUnusable(dir, `is not this user's alone (owner uid ${st.uid}, mode ${(st.mode & 0o777).toString(8)}): make it 0700 and this user's`);
    return withHostLock(dir, () => f(new WorkspaceRegistry(dir)), o);
  }

  async all(): Promise<RegistryEntry[]> {
    const names = (await readdir(this.dir)).filter((n) => n.endsWith(".json"));
    const out: RegistryEntry[] = [];
    for (const n of names) {
      const e = await this.readFile(join(this.dir, n));
      if (e) out.push(e);
    }
    return out;
  }

  get(key: string): Promise<RegistryEntry | null> {
    return this.readFile(fileOf(this.dir, key));
  }

  async put(e: RegistryEntry): Promise<void> {
    const file = fileOf(this.dir, e.key);
    await replaceWith(file, (tmp) => writeFile(tmp, JSON.stringify(e), { mode: 0o600 }));
  }

  async remove(key: string): Promise<void> {
    await rm(fileOf(this.dir, key), { force: true });
  }

  private async readFile(file: string): Promise<RegistryEntry | null> {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new RegistryUnusable(this.dir, `has ${file}, which cannot be read: ${(err as Error).message}`, err);
    }
    try {
      const e = JSON.parse(text) as RegistryEntry;
      if (typeof e.key !== "string" || typeof e.path !== "string" || !Array.isArray(e.line) || !Array.isArray(e.users)) throw new Error("not an entry");
      return e;
    } catch (err) {
      throw new RegistryUnusable(
        this.dir,
        `has ${file}, which is no entry (${(err as Error).message}): move it away once its workspace's owner is checked`,
        err,
      );
    }
  }
}
