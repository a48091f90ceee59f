// A lock every process of one user on this host sees, the state dir lock's way (state/lock.ts): a unix
// socket in the kernel's abstract namespace, bound while the lock is held — the kernel frees the name with
// the process, however it ends, so there is no file to go stale. Its name is a hash of the folder's real
// path and a key kept in it (0600, made once atomically): only that folder's user can know it, so no agent
// can bind it first. A process that finds it bound waits for it (there is no holder to ask: a lock is held
// for one step, seconds). Limit (as the state dir lock's): the abstract namespace is a network namespace's.
import { createHash, randomBytes } from "node:crypto";
import { link, readFile, unlink, writeFile } from "node:fs/promises";
import { type Server, createServer } from "node:net";
import { join } from "node:path";
import { sleep } from "../time/clock.js";
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

/**
 * `f` under the lock of `dir` (a folder of this user's alone): waits while another process holds it. Not
 * reentrant — one process takes it for one step at a time (its callers serialise themselves).
 */
export async function withHostLock<T>(dir: string, f: () => Promise<T>): Promise<T> {
  const digest = createHash("sha256")
    .update(`${realPathOf(dir)}\0${await keyOf(dir)}`)
    .digest("hex")
    .slice(0, 40);
  const name = `\0hermes-kanban-bridge/host-lock/${digest}`;
  let server = await bind(name);
  for (let wait = 5; !server; wait = Math.min(wait * 2, 100)) {
    await sleep(wait);
    server = await bind(name);
  }
  const held = server;
  try {
    return await f();
  } finally {
    await new Promise<void>((r) => held.close(() => r()));
  }
}
