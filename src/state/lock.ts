// One daemon per seat: the state dir is locked for the daemon's life. The lock is a unix socket in the
// kernel's abstract namespace, bound by the daemon and held until its process ends — however it ends: the
// kernel frees the name with the process, so there is no file to go stale and nothing to clean up after a
// crash. Its name is a hash of the state dir's real path and a key kept in the state dir (0600): only
// the bridge's own user can know it, so no other process (an agent) can take it first. A second daemon
// fails to bind it and asks the holder who it is: pid, host, config and start, named in the refusal.
// Limit: the abstract namespace belongs to a network namespace — two containers that share one state
// dir volume but not a network do not see each other's lock (give each seat its own volume).
import { createHash, randomBytes } from "node:crypto";
import { link, readFile, unlink, writeFile } from "node:fs/promises";
import { type Server, connect, createServer } from "node:net";
import { hostname } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../errors/index.js";
import { realPathOf } from "../agent-files/contain.js";
import { statePath } from "./layout.js";

export interface LockHolder {
  pid: number;
  host: string;
  /** The config file it was started with, if any. */
  config: string | null;
  startedAt: string;
}

/** Another daemon holds this state dir. */
export class StateDirLocked extends ConfigError {
  constructor(
    readonly stateDir: string,
    readonly holder: LockHolder | null,
  ) {
    const who = holder
      ? `pid ${holder.pid} on ${holder.host}${holder.config ? ` (config ${holder.config})` : ""}, running since ${holder.startedAt}`
      : "a process that did not say who it is";
    super([
      {
        path: "stateDir",
        message: `${stateDir} is in use by another hermes-bridge daemon: ${who}. One daemon per seat — stop that one first (\`status\`, \`outbox list\`, \`fleet\`, \`usage\` and \`doctor\` work beside it), or give this one a stateDir of its own`,
      },
    ]);
  }
}

export interface StateDirLock {
  readonly holder: LockHolder;
  release(): Promise<void>;
}

/** The key that makes the lock's name unguessable (made once, atomically: two first starts agree on it); null: none yet. */
async function lockKey(stateDir: string, create: boolean): Promise<string | null> {
  const file = statePath(stateDir, "lockKey");
  try {
    return (await readFile(file, "utf8")).trim();
  } catch {
    if (!create) return null;
    const tmp = join(stateDir, `.lock-key.${process.pid}.${randomBytes(4).toString("hex")}`);
    await writeFile(tmp, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
    await link(tmp, file).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err;
    });
    await unlink(tmp).catch(() => undefined);
    return (await readFile(file, "utf8")).trim();
  }
}

/** The abstract socket name of a state dir's lock (null: no daemon ever locked it, and `create` is off). */
async function lockName(stateDir: string, create = true): Promise<string | null> {
  const key = await lockKey(stateDir, create);
  if (key === null) return null;
  const digest = createHash("sha256")
    .update(`${realPathOf(stateDir)}\0${key}`)
    .digest("hex")
    .slice(0, 40);
  return `\0hermes-kanban-bridge/${digest}`;
}

/** Who holds the lock of `name`, as it answers; null when it does not answer sensibly; "free" when nothing listens. */
function askHolder(name: string): Promise<LockHolder | null | "free"> {
  return new Promise((resolve) => {
    const s = connect(name);
    let text = "";
    const done = (h: LockHolder | null | "free") => {
      s.destroy();
      resolve(h);
    };
    s.setTimeout(2000, () => done(null));
    s.on("data", (c: Buffer) => {
      text += c.toString("utf8");
      if (text.length > 4096) done(null);
    });
    s.on("error", (err: NodeJS.ErrnoException) => done(err.code === "ECONNREFUSED" || err.code === "ENOENT" ? "free" : null));
    s.on("end", () => {
      try {
        const h = JSON.parse(text) as Partial<LockHolder>;
        done(
          typeof h.pid === "number" && typeof h.host === "string"
            ? { pid: h.pid, host: h.host, config: h.config ?? null, startedAt: String(h.startedAt ?? "?") }
            : null,
        );
      } catch {
        done(null);
      }
    });
  });
}

/** Locks `stateDir` for this process, or throws StateDirLocked naming the daemon that has it. */
export async function lockStateDir(stateDir: string, o: { config: string | null; now: number }): Promise<StateDirLock> {
  const name = (await lockName(stateDir)) ?? "";
  const holder: LockHolder = { pid: process.pid, host: hostname(), config: o.config, startedAt: new Date(o.now).toISOString() };
  const server: Server = createServer((c) => {
    c.on("error", () => undefined);
    c.end(JSON.stringify(holder));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(name, () => {
      server.off("error", reject);
      resolve();
    });
  }).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code === "EADDRINUSE") {
      const h = await askHolder(name);
      throw new StateDirLocked(stateDir, h === "free" ? null : h);
    }
    throw new Error(`could not lock the state dir ${stateDir}: ${err.message}`, { cause: err });
  });
  // The lock never keeps the process alive by itself.
  server.unref();
  return { holder, release: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Who holds `stateDir` now: its daemon, null (a holder that does not say), or "free" (what `status` says beside a seat). */
export async function lockHolder(stateDir: string): Promise<LockHolder | null | "free"> {
  const name = await lockName(stateDir, false).catch(() => null);
  return name === null ? "free" : askHolder(name);
}
