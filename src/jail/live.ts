// The workspaces of the runs alive on this host, by inode (never by a path string): a run's workspace may
// be another live run's (two runs of one `dir:` share it, and its hand-over), never inside or around one —
// its jail would show the other's files to its agent — nor reached through one (a link there is its agent's
// to turn between the check and the hand-over). What is alive: the host's registry of workspaces handed
// over (jail/registry.ts: every process of this bridge user registers its runs' workspaces there, under
// the registry's lock from the check through the hand-over, and gives them back under it), every jail on
// the host (any bridge's: its first process was started in its workspace, and its cwd is compared by device
// and inode) and, without namespaces (isolation user), the agent uid's processes, by their cwd's inode. The
// give-back of a workspace waits for its last user, in any process; what a hand-over changed is kept in the
// registry until it is given back, so what a bridge that died mid-run left is settled by whoever comes next
// (a claim, a give-back, a seat's start) — with that record, before anything else is handed over.
import { readlink, stat } from "node:fs/promises";
import { PermanentError } from "../errors/index.js";
import { jailsAndProcessesOf } from "../process/terminate.js";
import { type Handback, type HandbackRecord, fromRecord, giveBack } from "../agent-files/owner.js";
import { type RegistryEntry, type RegisteredUser, WorkspaceRegistry, alive, me, sameProcess } from "./registry.js";

/** The task's workspace is inside, or holds, another live run's: its jail would show that run's files. */
export class WorkspaceNested extends PermanentError {
  constructor(
    readonly workspace: string,
    readonly other: string,
    readonly how: "inside" | "contains" | "through",
    /** Whose run it is, as far as the host says (a seat's state dir and pid, a jail's pid). */
    readonly who = "",
  ) {
    // Quoted: the other path is another task's text (its `dir:`) or a live jail's working directory (its agent's to name).
    const theirs = `${JSON.stringify(other)}, the workspace of a run alive on this host${who ? ` (${who})` : ""}`;
    super(
      "workspace_nested",
      how === "through"
        ? `the task's workspace ${workspace} passes through ${theirs}: a link there is that run's agent's to turn, anywhere`
        : `the task's workspace ${workspace} ${how === "inside" ? "is inside" : "contains"} ${theirs}: its agent would see and change that run's files`,
    );
  }
}

/** This process's runs in one workspace (the registry holds the process once for all of them). */
interface Live {
  key: string;
  users: Set<object>;
  /** The hand-over (null: nothing handed over — a bridge as the agent's own user, a run that joined another's). */
  back: Handback | null;
}

const live = new Map<string, Live>();
let queue: Promise<unknown> = Promise.resolve();
/** One claim or give-back at a time in this process (the registry's lock is not reentrant). */
const serial = <T>(f: () => Promise<T>): Promise<T> => {
  const p = queue.then(f);
  queue = p.catch(() => undefined);
  return p;
};

/** `p`'s inode, then each parent's (`..` as the kernel resolves it) up to the root: empty when `p` is gone. */
async function lineOf(p: string): Promise<string[]> {
  const out: string[] = [];
  let at = p;
  for (let i = 0; i < 512; i += 1) {
    const st = await stat(at, { bigint: true }).catch(() => null);
    if (!st) break;
    const key = `${st.dev}:${st.ino}`;
    if (out.at(-1) === key) break; // the root's parent is the root
    out.push(key);
    at = `${at}/..`;
  }
  return out;
}

const cwdOf = (pid: number) => readlink(`/proc/${pid}/cwd`).catch(() => `(pid ${pid})`);

/**
 * The line of each folder the path `p` names on its way to it, as written (a link among them followed as it
 * points now): a path that passes through a live workspace has a step a live agent may turn.
 */
async function stepsOf(p: string): Promise<string[][]> {
  const parts = p.split("/").filter(Boolean);
  const out: string[][] = [];
  for (let i = 1; i < parts.length; i += 1) out.push(await lineOf(`/${parts.slice(0, i).join("/")}`));
  return out;
}

/** A live workspace on the host (the registry's `entries`, the jails) that nests with `line` (its path and how), or null. */
async function nestedOnHost(
  path: string,
  line: string[],
  uid: number | null,
  entries: readonly RegistryEntry[],
): Promise<{ other: string; how: WorkspaceNested["how"]; who: string } | null> {
  const key = line[0];
  const others: { key: string; line: string[]; path: () => Promise<string>; who: string }[] = entries.map((e) => ({
    key: e.key,
    line: e.line,
    path: async () => e.path,
    who: e.users.length ? seatsOf(e.users) : "",
  }));
  for (const pid of jailsAndProcessesOf(uid)) {
    const other = await lineOf(`/proc/${pid}/cwd`);
    if (other[0]) others.push({ key: other[0], line: other, path: () => cwdOf(pid), who: `a jail, pid ${pid}` });
  }
  // A step of the path as written inside a live workspace (or one): its agent may turn a link there, after this check.
  const steps = await stepsOf(path);
  for (const o of others) {
    const how: WorkspaceNested["how"] | null =
      o.key !== key && line.includes(o.key)
        ? "inside"
        : o.key !== key && key && o.line.includes(key)
          ? "contains"
          : steps.some((s) => s.includes(o.key))
            ? "through"
            : null;
    if (how) return { other: await o.path(), how, who: o.who };
  }
  return null;
}

/** Is the workspace `key` in use by a jail, or an agent's process, working in it (a bridge's that is not in the registry, or one a dead bridge left)? */
async function usedElsewhere(key: string, uid: number | null): Promise<boolean> {
  for (const pid of jailsAndProcessesOf(uid)) if ((await lineOf(`/proc/${pid}/cwd`)).includes(key)) return true;
  return false;
}

const seatsOf = (users: readonly RegisteredUser[]) => users.map((u) => `pid ${u.pid} of ${u.seat || "a seat"}`).join(", ");

/** Gives back what `e`'s hand-over changed, if its path is still that inode (a folder put in its place is not walked). */
async function giveBackEntry(e: RegistryEntry): Promise<void> {
  if (!e.record || (await lineOf(e.record.root))[0] !== e.key) return;
  const r = await giveBack(e.record);
  if (r.failed.length) throw new Error(`the give-back of ${e.path} failed for ${r.failed.join("; ")}`);
}

/**
 * The registry's entries, those of processes that are all gone settled first: given back with their record
 * (unless a jail still works there: a run its dead bridge left, which the next claim of it adopts) and
 * removed. A settle that fails keeps its entry; it fails the caller when `strict` says the entry is its concern.
 */
async function settleDead(
  reg: WorkspaceRegistry,
  uid: number | null,
  strict: (e: RegistryEntry) => boolean,
): Promise<{ entries: RegistryEntry[]; settled: number }> {
  const entries: RegistryEntry[] = [];
  let settled = 0;
  for (const e of await reg.all()) {
    const users: RegisteredUser[] = [];
    for (const u of e.users) if (await alive(u)) users.push(u);
    if (users.length > 0 || (await usedElsewhere(e.key, uid))) {
      if (users.length !== e.users.length && users.length > 0) await reg.put({ ...e, users });
      entries.push({ ...e, users });
      continue;
    }
    try {
      await giveBackEntry(e);
      await reg.remove(e.key);
      settled += 1;
    } catch (err) {
      if (strict(e)) throw new Error(`${e.path} was left handed over by ${seatsOf(e.users)}, which ended: ${(err as Error).message}`, { cause: err });
      entries.push(e);
    }
  }
  return { entries, settled };
}

export interface WorkspaceHost {
  /** The host's registry of workspaces handed over (jail/registry.ts). */
  registry: string;
  /** Without namespaces (isolation user): the agent's uid, whose processes are its runs'. */
  uid: number | null;
}

/**
 * Registers `user`'s run in `workspace` (refused — WorkspaceNested — when it nests with a live one) and hands
 * it over with `hand` unless a live run already did; `seat`: the seat's state dir, for messages.
 */
export function claimWorkspace(
  workspace: string,
  user: object,
  o: WorkspaceHost & { hand: (() => Promise<Handback | null>) | null; seat: string },
): Promise<Handback | null> {
  return serial(() =>
    WorkspaceRegistry.locked(
      o.registry,
      async (reg) => {
        const line = await lineOf(workspace);
        const key = line[0] ?? "";
        // What a dead bridge left of this workspace, or around or inside it, comes back first (a record of its hand-over).
        const { entries } = await settleDead(reg, o.uid, (e) => e.key === key || line.includes(e.key) || e.line.includes(key));
        const nested = await nestedOnHost(workspace, line, o.uid, entries);
        if (nested) throw new WorkspaceNested(workspace, nested.other, nested.how, nested.who);
        const was = live.get(key);
        if (was) {
          was.users.add(user);
          return was.back;
        }
        const i = await me(o.seat);
        const entry = entries.find((e) => e.key === key);
        if (entry) {
          // Another process's runs work there (its hand-over stands; the last to end gives it back) — or a run a
          // dead bridge left, adopted now with its record (its jail still works there).
          const adopted = entry.users.length === 0 && entry.record ? fromRecord(entry.record) : null;
          await reg.put({ ...entry, users: [...entry.users, i] });
          live.set(key, { key, users: new Set([user]), back: adopted });
          return adopted;
        }
        // A run the registry does not know works there (another user's bridge): the tree is that run's, not walked while alive.
        const hand = (await usedElsewhere(key, o.uid)) ? null : o.hand;
        const back = hand ? await hand() : null;
        const record: HandbackRecord | null = back && (back.changed > 0 || !sameOwner(back.record)) ? back.record : null;
        await reg.put({ key, path: workspace, line, users: [i], record });
        live.set(key, { key, users: new Set([user]), back });
        return back;
      },
      CLAIM_WAIT,
    ),
  );
}

/**
 * How long a claim waits for the host's registry (another process's claim or give-back walking or copying a
 * workspace of very many files): then the task is blocked naming the holder (HostLockTimeout). A give-back
 * waits as long as it takes — what it restores must be restored.
 */
const CLAIM_WAIT = { maxWaitMs: 5 * 60_000, what: "a workspace's claim" };

const sameOwner = (r: HandbackRecord) => r.owner.uid === r.to.uid && r.owner.gid === r.to.gid;

/** `user`'s run has ended: the workspace's last user on the host gives it back (unless a jail the registry does not know works there). */
export function releaseWorkspace(user: object, o: WorkspaceHost): Promise<void> {
  return serial(async () => {
    const e = [...live.values()].find((x) => x.users.has(user));
    if (!e) return;
    e.users.delete(user);
    if (e.users.size > 0) return;
    live.delete(e.key);
    await WorkspaceRegistry.locked(
      o.registry,
      async (reg) => {
        const i = await me("");
        const entry = await reg.get(e.key);
        if (entry) {
          const rest: RegisteredUser[] = [];
          for (const u of entry.users) if (!sameProcess(u, i) && (await alive(u))) rest.push(u);
          // Another seat's run joined (its agent may be starting now): the tree is its to give back.
          if (rest.length > 0) await reg.put({ ...entry, users: rest });
          // A jail the registry does not know works there: the entry waits, settled by whoever comes after it.
          else if (await usedElsewhere(e.key, o.uid)) await reg.put({ ...entry, users: [] });
          else {
            await giveBackEntry(entry).catch(async (err: unknown) => {
              await reg.put({ ...entry, users: [] });
              throw err;
            });
            await reg.remove(e.key);
          }
        }
        // Entries others left (their bridge died, or a jail was there at their end) are settled as runs end.
        await settleDead(reg, o.uid, () => false);
      },
      { what: "a workspace's give-back" },
    );
  });
}

/** At a seat's start: every hand-over a dead process left in the registry (this seat's last one, any other), given back now (none in use). */
export function recoverHandbacks(o: WorkspaceHost): Promise<number> {
  return serial(() =>
    WorkspaceRegistry.locked(o.registry, async (reg) => (await settleDead(reg, o.uid, () => false)).settled, { what: "settling what a dead bridge left" }),
  );
}
