// The workspaces of the runs alive on this host, by inode (never by a path string): a run's workspace may
// be another live run's (two runs of one `dir:` share it, and its hand-over), never inside or around one —
// its jail would show the other's files to its agent — nor reached through one (a link there is its agent's
// to turn between the check and the hand-over). What is alive: this process's runs (registered here
// from the hand-over to the give-back) and every jail on the host (any bridge's: its first process was
// started in its workspace, and its cwd is compared by device and inode); without namespaces (isolation
// user), the agent uid's processes, by their cwd's inode. The give-back of a workspace waits for its last
// user; what a hand-over changed is kept on disk (the seat's jail dir) until it is given back, so a bridge
// that died mid-run gives it back at its next start (recoverHandbacks) or the workspace's next hand-over.
import { mkdir, readFile, readdir, readlink, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PermanentError } from "../errors/index.js";
import { jailsAndProcessesOf } from "../process/terminate.js";
import { type Handback, type HandbackRecord, fromRecord, giveBack } from "../sandbox/owner.js";

/** The task's workspace is inside, or holds, another live run's: its jail would show that run's files. */
export class WorkspaceNested extends PermanentError {
  constructor(
    readonly workspace: string,
    readonly other: string,
    readonly how: "inside" | "contains" | "through",
  ) {
    super(
      "workspace_nested",
      how === "through"
        ? `the task's workspace ${workspace} passes through ${other}, the workspace of a run alive on this host: a link there is that run's agent's to turn, anywhere`
        : `the task's workspace ${workspace} ${how === "inside" ? "is inside" : "contains"} ${other}, the workspace of a run alive on this host: its agent would see and change that run's files`,
    );
  }
}

interface Live {
  key: string;
  /** The inodes of the workspace and each of its parents, the workspace's first. */
  line: string[];
  path: string;
  users: Set<object>;
  /** The hand-over (null: nothing handed over — a bridge as the agent's own user). */
  ready: Promise<Handback | null>;
  record: string | null;
}

const live = new Map<string, Live>();
let queue: Promise<unknown> = Promise.resolve();
/** One claim or give-back at a time in this process: a check and its registration are one step. */
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

/** A live workspace elsewhere on the host that nests with `line` (its path and how), or null. */
async function nestedOnHost(path: string, line: string[], uid: number | null): Promise<{ other: string; how: WorkspaceNested["how"] } | null> {
  const key = line[0];
  const others: { key: string; line: string[]; path: () => Promise<string> }[] = [...live.values()].map((e) => ({
    key: e.key,
    line: e.line,
    path: async () => e.path,
  }));
  for (const pid of jailsAndProcessesOf(uid)) {
    const other = await lineOf(`/proc/${pid}/cwd`);
    if (other[0]) others.push({ key: other[0], line: other, path: () => cwdOf(pid) });
  }
  // A step of the path as written inside a live workspace (or one): its agent may turn a link there, after this check.
  const steps = await stepsOf(path);
  for (const o of others) {
    if (o.key !== key && line.includes(o.key)) return { other: await o.path(), how: "inside" };
    if (o.key !== key && key && o.line.includes(key)) return { other: await o.path(), how: "contains" };
    if (steps.some((s) => s.includes(o.key))) return { other: await o.path(), how: "through" };
  }
  return null;
}

/** Is the workspace `key` in use by a run of another process (its jail started there; an agent's process working in it)? */
async function usedElsewhere(key: string, uid: number | null): Promise<boolean> {
  for (const pid of jailsAndProcessesOf(uid)) if ((await lineOf(`/proc/${pid}/cwd`)).includes(key)) return true;
  return false;
}

/** Where a seat keeps the hand-overs not given back yet (its jail dir). */
export const handbacksDir = (policy: { dir: string }): string => join(policy.dir, "handbacks");

const recordFile = (dir: string, key: string) => join(dir, `${key.replace(/[^0-9]/g, "-")}.json`);

async function keep(dir: string, key: string, record: HandbackRecord): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = recordFile(dir, key);
  await writeFile(`${file}.new`, JSON.stringify({ key, record }), { mode: 0o600 });
  await rename(`${file}.new`, file);
  return file;
}

const readRecord = async (file: string) => (JSON.parse(await readFile(file, "utf8")) as { key: string; record: HandbackRecord }).record;

/** Gives back a kept record when its workspace is still that inode and no run uses it; true when it is settled. */
async function settle(file: string, uid: number | null): Promise<boolean> {
  const kept = JSON.parse(await readFile(file, "utf8")) as { key: string; record: HandbackRecord };
  if (live.has(kept.key) || (await usedElsewhere(kept.key, uid))) return false;
  if ((await lineOf(kept.record.root))[0] === kept.key) {
    const r = await giveBack(kept.record);
    if (r.failed.length) throw new Error(`the give-back of ${kept.record.root} failed for ${r.failed.join("; ")}`);
  }
  await rm(file, { force: true });
  return true;
}

/**
 * Registers `user`'s run in `workspace` (refused — WorkspaceNested — when it nests with a live one) and hands
 * it over with `hand` unless a live run already did; `records`: where the hand-over's record is kept.
 */
export function claimWorkspace(
  workspace: string,
  user: object,
  o: { hand: (() => Promise<Handback | null>) | null; records: string; uid: number | null },
): Promise<Handback | null> {
  const entry = serial(async () => {
    const line = await lineOf(workspace);
    const key = line[0] ?? "";
    const nested = await nestedOnHost(workspace, line, o.uid);
    if (nested) throw new WorkspaceNested(workspace, nested.other, nested.how);
    const was = live.get(key);
    if (was) {
      was.users.add(user);
      return was;
    }
    // A hand-over a dead bridge never gave back comes back first (its agents are gone with it) — or, where its
    // agent survived it and works there still (a run this seat adopts), that record is the run's to give back.
    const pending = recordFile(o.records, key);
    const adopted = (await stat(pending).catch(() => null)) && !(await settle(pending, o.uid)) ? await readRecord(pending) : null;
    if (adopted) {
      const e: Live = { key, line, path: workspace, users: new Set([user]), ready: Promise.resolve(fromRecord(adopted)), record: pending };
      live.set(key, e);
      return e;
    }
    // Another bridge's run works there: the tree is that run's to give back — it is not walked while alive.
    const hand = (await usedElsewhere(key, o.uid)) ? null : o.hand;
    const e: Live = { key, line, path: workspace, users: new Set([user]), ready: Promise.resolve(null), record: null };
    e.ready = (async () => {
      const back = hand ? await hand() : null;
      if (back && back.changed > 0) e.record = await keep(o.records, key, back.record);
      return back;
    })();
    live.set(key, e);
    return e;
  });
  return entry.then((e) => e.ready);
}

/** `user`'s run has ended in `workspace`: its last user gives it back (unless a run of another process works there). */
export function releaseWorkspace(user: object, uid: number | null, records?: string): Promise<void> {
  return serial(async () => {
    const e = [...live.values()].find((x) => x.users.has(user));
    if (!e) return;
    e.users.delete(user);
    if (e.users.size > 0) return;
    live.delete(e.key);
    const back = await e.ready.catch(() => null);
    // A run of another bridge works there too: its record stays, given back when that is over (settle, below).
    if (back && !(await usedElsewhere(e.key, uid))) {
      const r = await back.restore();
      if (e.record) await rm(e.record, { force: true });
      if (r.failed.length) throw new Error(`the give-back of ${e.path} failed for ${r.failed.join("; ")}`);
    }
    // Records an earlier give-back had to leave (another bridge's run was there then) are settled as runs end.
    if (records) await settleAll(records, uid);
  });
}

async function settleAll(records: string, uid: number | null): Promise<number> {
  const files = (await readdir(records).catch(() => [] as string[])).filter((f) => f.endsWith(".json"));
  let n = 0;
  for (const f of files) if (await settle(join(records, f), uid).catch(() => false)) n += 1;
  return n;
}

/** At a seat's start: every hand-over its last process never gave back, given back now (none in use). */
export function recoverHandbacks(records: string, uid: number | null): Promise<number> {
  return serial(() => settleAll(records, uid));
}
