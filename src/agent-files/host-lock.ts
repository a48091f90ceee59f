// A lock every process of one user on this host sees, the state dir lock's way (state/lock.ts): a unix
// socket in the kernel's abstract namespace, bound while the lock is held — the kernel frees the name with
// the process, however it ends, so there is no file to go stale. Its name is a hash of the folder's real
// path and a key kept in it (0600, made once atomically): only that folder's user can know it, so no agent
// can bind it first. A process that finds it bound waits for it — a lock is held for one step, seconds; a
// walk or a copy of a workspace of very many files, longer — up to `maxWaitMs`, then gives up naming the
// holder (each holder notes itself in the folder's `holder` file: pid, since, what for). Limit (as the state
// dir lock's): the abstract namespace is a network namespace's.
import { createHash, randomBytes } from "node:crypto";
import { link, readFile, unlink, writeFile } from "node:fs/promises";
import { type Server, createServer } from "node:net";
import { join } from "node:path";
import { BridgeError } from "../errors/index.js";
import { type Clock, sleep, systemClock } from "../time/clock.js";
import { realPathOf } from "./contain.js";

const KEY = ".lock-key";

/** The lock's key (made once, atomically: two first users agree on it). */
async function keyOf(dir: string): Promise<string> {
  const file = join(dir, KEY);
  const have = await readFile(file, "utf8").catch(() => null);
  if (have !== null) return have.trim();
  const tmp = join(dir, `.lock-key.${process.pid}.${randomBytes(4).toString("hex")}`);
  await writeFile(tmp, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
  await link(tmp, file).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "EEXIST") throw err;
  });
  await unlink(tmp).catch(() => undefined);
  return (await readFile(file, "utf8")).trim();
}

const bind = (name: string): Promise<Server | null> =>
  new Promise((resolve, reject) => {
    const server = createServer((c) => c.destroy());
    server.once("error", (err: NodeJS.ErrnoException) => (err.code === "EADDRINUSE" ? resolve(null) : reject(err)));
    server.listen(name, () => {
      server.removeAllListeners("error");
      server.unref();
      resolve(server);
    });
  });

/** Another process held the host's lock longer than this one would wait. */
export class HostLockTimeout extends BridgeError {
  constructor(
    readonly dir: string,
    readonly waitedMs: number,
    readonly holder: string,
  ) {
    super("host_lock_timeout", `the host's lock at ${dir} was held by another process for more than ${Math.round(waitedMs / 1000)} s (${holder})`);
  }
}

const HOLDER = "holder";

/** Who holds the lock, as its holder noted it. */
async function holderOf(dir: string): Promise<string> {
  const text = await readFile(join(dir, HOLDER), "utf8").catch(() => "");
  try {
    const h = JSON.parse(text) as { pid?: number; since?: string; what?: string };
    return `pid ${h.pid ?? "?"}, since ${h.since ?? "?"}${h.what ? `, ${h.what}` : ""}`;
  } catch {
    return "its holder did not say who it is";
  }
}

/**
 * `f` under the lock of `dir` (a folder of this user's alone): waits while another process holds it, up to
 * `maxWaitMs` (HostLockTimeout; unset: as long as it takes). Not reentrant — one process takes it for one
 * step at a time (its callers serialise themselves). `what`: what it is held for, in the holder file.
 */
export async function withHostLock<T>(dir: string, f: () => Promise<T>, o: { maxWaitMs?: number; what?: string; clock?: Clock } = {}): Promise<T> {
  const digest = createHash("sha256")
    .update(`${realPathOf(dir)}\0${await keyOf(dir)}`)
    .digest("hex")
    .slice(0, 40);
  const name = `\0hermes-kanban-bridge/host-lock/${digest}`;
  const clock = o.clock ?? systemClock;
  const from = clock.now();
  let server = await bind(name);
  for (let wait = 5; !server; wait = Math.min(wait * 2, 100)) {
    const waited = clock.now() - from;
    if (o.maxWaitMs !== undefined && waited >= o.maxWaitMs) throw new HostLockTimeout(dir, waited, await holderOf(dir));
    await sleep(wait);
    server = await bind(name);
  }
  const held = server;
  await writeFile(join(dir, HOLDER), JSON.stringify({ pid: process.pid, since: new Date(clock.now()).toISOString(), what: o.what ?? "" }), {
    mode: 0o600,
  }).catch(() => undefined);
  try {
    return await f();
  } finally {
    await new Promise<void>((r) => held.close(() => r()));
  }
}
