// Where the execute-only copies of the agent CLIs' images live (images.ts says why they exist): one cache
// per bridge user (agent.isolation.imageCache; a forbidden root), shared by its seats. A copy is named by
// its source's identity (device, inode, size, modification time): the same file reached by two paths has
// one copy, a new version of a CLI gets a new one. Seats of one host that start at once copy each image
// once (a lock file per copy); a copy unused for a week, and what an interrupted copy left, are removed.
// The cache is checked at start (probeImageCache): an absolute folder on a filesystem that may hold and
// run programs, with room for what the seat will copy.
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { chmod, copyFile, mkdir, open, readdir, rm, stat, statfs, utimes } from "node:fs/promises";
import { basename, isAbsolute, join } from "node:path";
import { PermanentError } from "../errors/index.js";
import { replaceWith } from "../state/atomic.js";
import { runProcess } from "../process/runner.js";
import { hostCacheDir } from "./registry.js";
import { type Clock, sleep, systemClock } from "../time/clock.js";

/** Where the copies go when agent.isolation.imageCache is not set: root's /var/cache, else the user's cache dir. */
export function defaultImageCache(env: NodeJS.ProcessEnv, root = process.getuid?.() === 0): string {
  return join(hostCacheDir(env, root), "images");
}

/** Why `dir` can never be the cache (a relative path, a kernel filesystem), or null. */
export function imageCachePathWhy(dir: string): string | null {
  if (!isAbsolute(dir)) return `${dir} is not an absolute path`;
  if (/^\/(proc|sys|dev)(\/|$)/.test(dir)) return `${dir} is on the kernel's own filesystem (/proc, /sys, /dev), which holds no files`;
  return null;
}

/** An image could not be made execute-only (the cache's disk, its rights): the run cannot start protected. */
export class ImageUnavailable extends PermanentError {
  constructor(
    readonly image: string,
    readonly cache: string,
    cause: unknown,
  ) {
    const code = (cause as { code?: string }).code;
    const why = code === "ENOSPC" ? "its filesystem is full" : code === "EROFS" ? "its filesystem is read-only" : (cause as Error).message;
    super("image_unavailable", `${image} could not be copied execute-only into ${cache} (agent.isolation.imageCache): ${why}`, { cause });
  }
}

/** A copy's name: its source's identity (the same file by two paths is one copy), then its name. */
const copyName = (source: string, st: { dev: number; ino: number; size: number; mtimeMs: number }) =>
  `${createHash("sha256").update(`${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`).digest("hex").slice(0, 20)}-${basename(source)}`;

const WEEK_MS = 7 * 24 * 3600_000;
const HOUR_MS = 3600_000;
/** A lock older than this is a copier that died. */
const STALE_LOCK_MS = 10 * 60_000;

/** The cache of execute-only copies (one per source version). */
export class ExecOnlyImages {
  private readonly making = new Map<string, Promise<string>>();
  /** Copies this seat found whole and its own, and when (the check is once an hour, not once a run). */
  private readonly checked = new Map<string, number>();

  constructor(
    readonly dir: string,
    private readonly o: {
      /** The copies' mode: 0711 where the agents are another uid than their owner (root), else 0111 (not even the owner reads). */
      mode?: number;
      clock?: Clock;
      /** A copy was made (once per image and version): the seat logs it. */
      onCopied?: (image: string, bytes: number, ms: number) => void;
    } = {},
  ) {}

  private get mode(): number {
    return this.o.mode ?? (process.getuid?.() === 0 ? 0o711 : 0o111);
  }

  private now(): number {
    return (this.o.clock ?? systemClock).now();
  }

  /** The execute-only copy of `source` (a real path), made if this version of it has none yet. */
  async copyOf(source: string): Promise<string> {
    const st = await stat(source);
    const target = join(this.dir, copyName(source, st));
    // Checked (and its time moved) within the hour: the week before it is collected is far off, and the jail
    // still refuses a copy gone since (jail.ts), so a run no longer pays the check.
    const at = this.checked.get(target);
    if (at !== undefined && this.now() - at < HOUR_MS) return target;
    const pending = this.making.get(target);
    if (pending) return pending;
    const made = this.make(source, target, st.size).finally(() => this.making.delete(target));
    this.making.set(target, made);
    return made;
  }

  /** The copy is there, whole, execute-only and ours (a file of another's in its place is no copy). */
  private async ready(target: string, size: number): Promise<boolean> {
    const have = await stat(target).catch(() => null);
    return have?.isFile() === true && have.size === size && (have.mode & 0o777) === this.mode && have.uid === process.getuid?.();
  }

  private async make(source: string, target: string, size: number): Promise<string> {
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      const lock = `${target}.lock`;
      while (!(await this.ready(target, size))) {
        const held = await open(lock, "wx", 0o600).catch((err: NodeJS.ErrnoException) => {
          if (err.code === "EEXIST") return null;
          throw err;
        });
        if (held)
          try {
            if (!(await this.ready(target, size))) await this.copy(source, target);
          } finally {
            await held.close();
            await rm(lock, { force: true });
          }
        else {
          // Another seat of this host is copying it: wait for its copy (a lock it left when it died is taken over).
          const st = await stat(lock).catch(() => null);
          if (st && this.now() - st.mtimeMs > STALE_LOCK_MS) await rm(lock, { force: true });
          else await sleep(250);
        }
      }
      // Used now: the week before it is removed starts again.
      const now = new Date(this.now());
      await utimes(target, now, now).catch(() => undefined);
      this.checked.set(target, now.getTime());
      return target;
    } catch (err) {
      throw new ImageUnavailable(source, this.dir, err);
    }
  }

  private async copy(source: string, target: string): Promise<void> {
    const started = this.now();
    await replaceWith(target, async (tmp) => {
      // A reflink where the filesystem has them (no second copy of the bytes), else a copy.
      await copyFile(source, tmp, constants.COPYFILE_FICLONE);
      await chmod(tmp, this.mode);
    });
    this.o.onCopied?.(source, (await stat(target)).size, this.now() - started);
    await this.collect(target);
  }

  /** Copies no seat used for a week, and what interrupted copies left (over an hour old). */
  private async collect(keep: string): Promise<void> {
    const now = this.now();
    for (const n of await readdir(this.dir).catch(() => [] as string[])) {
      const p = join(this.dir, n);
      if (p === keep) continue;
      const st = await stat(p).catch(() => null);
      if (!st?.isFile()) continue;
      const leftover = n.endsWith(".tmp") || n.endsWith(".lock") || n.startsWith(".probe-");
      const age = leftover ? HOUR_MS : WEEK_MS;
      if (now - st.mtimeMs <= age) continue;
      // Looked at again right before: a seat that used it meanwhile keeps it (its use moved the time).
      const again = await stat(p).catch(() => null);
      if (again && now - again.mtimeMs > age) await rm(p, { force: true }).catch(() => undefined);
    }
  }
}

/** What the cache holds of `images` and what it would take, for doctor and the start check. */
export interface CacheProbe {
  problem: string | null;
  /** Each image, its size, and whether this version is copied already. */
  images: { image: string; bytes: number; cached: boolean }[];
  freeBytes: number | null;
}

/**
 * Checks that `dir` can hold the seat's images and run them: an absolute folder (made if missing), a probe
 * program written execute-only there and run (a `noexec` mount refuses it), and room for the images not
 * copied yet. Nothing else is written.
 */
export async function probeImageCache(dir: string, images: readonly string[]): Promise<CacheProbe> {
  const out: CacheProbe = { problem: imageCachePathWhy(dir), images: [], freeBytes: null };
  if (out.problem) return out;
  for (const image of images) {
    const st = await stat(image).catch(() => null);
    if (!st) continue;
    const have = await stat(join(dir, copyName(image, st))).catch(() => null);
    out.images.push({ image, bytes: st.size, cached: have?.size === st.size });
  }
  const probe = join(dir, `.probe-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // Ours alone: a cache others may write could hold a "copy" of theirs that the jail would run.
    const own = await stat(dir);
    if (own.uid !== process.getuid?.() || (own.mode & 0o022) !== 0) {
      out.problem = `${dir} is not this user's alone (owner uid ${own.uid}, mode ${(own.mode & 0o777).toString(8)}): make it 0700 and this user's`;
      return out;
    }
    const fs = await statfs(dir);
    out.freeBytes = fs.bavail * fs.bsize;
    const tiny = ["/usr/bin/true", "/bin/true"];
    const program = (
      await Promise.all(
        tiny.map((p) =>
          stat(p).then(
            () => p,
            () => null,
          ),
        ),
      )
    ).find((p) => p !== null);
    if (program) {
      await copyFile(program, probe);
      await chmod(probe, 0o711);
      const r = await runProcess({ argv: [probe], env: {}, timeoutMs: 10_000 });
      if (r.exitCode !== 0)
        out.problem = `${dir} cannot run the CLI's execute-only images (a noexec mount?): ${r.spawnError?.message ?? `exit ${r.exitCode ?? r.signal}`}`;
    }
    const needed = out.images.filter((i) => !i.cached).reduce((n, i) => n + i.bytes, 0);
    if (!out.problem && needed > out.freeBytes) out.problem = `${dir} has ${mib(out.freeBytes)} free, and the seat's images need ${mib(needed)} more`;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    out.problem = `${dir} cannot hold the CLI's execute-only images: ${e.code === "EROFS" ? "a read-only filesystem" : e.message}`;
  } finally {
    await rm(probe, { force: true }).catch(() => undefined);
  }
  return out;
}

export const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;
