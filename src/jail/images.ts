// The agent CLI's own process is no door into its stream. Every process of a jail is one uid, and where
// the host has no Yama LSM the kernel lets a process open another's /proc/<pid>/mem of the same uid —
// seccomp cannot refuse an open(). What it does refuse is a process that is not "dumpable", and the kernel
// makes a process non-dumpable when it starts from an image it may execute but not read. So the CLI's
// images (the program, its `#!` interpreter, what the kind names: Codex's native binary) are shown in the
// jail as execute-only copies bound over their real paths: the CLI runs as before, and no other process of
// the jail can read or write its memory or reopen its descriptors through /proc.
//
// The copies live in one cache per bridge user (agent.isolation.imageCache; a forbidden root), named by
// the source's identity (device, inode, size, modification time): made once per version of the CLI and
// shared by every seat of the host; a new version replaces the old one's copy.
import { createHash } from "node:crypto";
import { constants, openSync, readSync, closeSync, realpathSync, statSync } from "node:fs";
import { chmod, copyFile, mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { PermanentError } from "../errors/index.js";
import { isInside } from "../sandbox/contain.js";
import { resolveProgram } from "./program.js";

/** Where the copies go when agent.isolation.imageCache is not set: root's /var/cache, else the user's cache dir. */
export function defaultImageCache(env: NodeJS.ProcessEnv, root = process.getuid?.() === 0): string {
  if (root) return "/var/cache/hermes-bridge/images";
  const base = env.XDG_CACHE_HOME?.startsWith("/") ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(base, "hermes-bridge", "images");
}

/** An image could not be made execute-only (the cache's disk, its rights): the run cannot start protected. */
export class ImageUnavailable extends PermanentError {
  constructor(
    readonly image: string,
    readonly cache: string,
    cause: unknown,
  ) {
    super("image_unavailable", `${image} could not be copied execute-only into ${cache} (agent.isolation.imageCache): ${(cause as Error).message}`, {
      cause,
    });
  }
}

/** The first bytes of a file: an ELF image, a `#!` line (its interpreter and argument), or neither. */
export function imageKind(path: string): { elf: true } | { interpreter: string; arg?: string } | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK); // sync-io: a program the operator named, before the run
    const head = Buffer.alloc(256);
    const n = readSync(fd, head, 0, head.length, 0);
    if (n >= 4 && head.readUInt32BE(0) === 0x7f454c46) return { elf: true };
    if (head.subarray(0, 2).toString() !== "#!") return null;
    const line = head.subarray(2, n).toString("utf8").split("\n")[0]?.trim() ?? "";
    const [interpreter = "", arg] = line.split(/\s+/, 2);
    return interpreter.startsWith("/") ? { interpreter, ...(arg ? { arg } : {}) } : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const real = (p: string): string | null => {
  try {
    const r = realpathSync(p);
    return statSync(r).isFile() ? r : null;
  } catch {
    return null;
  }
};

/** An image and the paths the jail may reach it by: its real path, and the path it was found at (through links). */
export interface ProgramImage {
  image: string;
  at: readonly string[];
}

const imageAt = (found: string, image: string): ProgramImage => ({ image, at: [...new Set([image, found])] });

/**
 * The images a program starts from: the program itself when it is an image, else its `#!` interpreter
 * (`/usr/bin/env node`: `node` on the run's PATH) — the processes that hold the CLI's stream. Each is bound
 * over its real path and over the path it was found at: a folder shown through a link (a `node_modules`
 * that is a link, a versions folder behind a `current` link) reaches the same file by another path.
 */
export function programImages(program: string, path: string | undefined, cwd: string): ProgramImage[] {
  const abs = resolveProgram(program, path, cwd);
  const file = abs ? real(abs) : null;
  // A program of the workspace's is the agent's own file (and no CLI of the seat's): nothing of it is read here.
  if (!abs || !file || isInside(cwd, file) || isInside(cwd, abs)) return [];
  const kind = imageKind(file);
  if (!kind) return [];
  if ("elf" in kind) return [imageAt(abs, file)];
  const viaEnv = basename(kind.interpreter) === "env" && kind.arg && !kind.arg.startsWith("-");
  const interpreter = viaEnv ? resolveProgram(kind.arg ?? "", path, cwd) : kind.interpreter;
  const image = interpreter ? real(interpreter) : null;
  return interpreter && image && "elf" in (imageKind(image) ?? {}) ? [imageAt(interpreter, image)] : [];
}

/** Why the cache cannot hold copies (made if missing; a probe file written and removed), or null. */
export async function imageCacheProblem(dir: string): Promise<string | null> {
  const probe = join(dir, `.probe-${process.pid}`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await copyFile("/dev/null", probe);
    await rm(probe, { force: true });
    return null;
  } catch (err) {
    return `${dir} cannot hold the CLI's execute-only images: ${(err as Error).message}`;
  }
}

/** The cache of execute-only copies (one per source version). */
export class ExecOnlyImages {
  private readonly making = new Map<string, Promise<string>>();

  constructor(
    readonly dir: string,
    /** The copies' mode: 0711 where the agents are another uid than their owner (root), else 0111 (not even the owner reads). */
    private readonly mode: number = process.getuid?.() === 0 ? 0o711 : 0o111,
  ) {}

  /** The execute-only copy of `source` (a real path), made if this version of it has none yet. */
  async copyOf(source: string): Promise<string> {
    const st = await stat(source);
    const id = createHash("sha256").update(`${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`).digest("hex").slice(0, 16);
    const family = createHash("sha256").update(source).digest("hex").slice(0, 16);
    const name = `${family}-${id}-${basename(source)}`;
    const target = join(this.dir, name);
    const pending = this.making.get(target);
    if (pending) return pending;
    const made = this.make(source, target, st.size, family).finally(() => this.making.delete(target));
    this.making.set(target, made);
    return made;
  }

  private async make(source: string, target: string, size: number, family: string): Promise<string> {
    try {
      const have = await stat(target).catch(() => null);
      if (have?.isFile() && have.size === size && (have.mode & 0o777) === this.mode) return target;
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      const tmp = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      // A reflink where the filesystem has them (no second copy of the bytes), else a copy.
      await copyFile(source, tmp, constants.COPYFILE_FICLONE);
      await chmod(tmp, this.mode);
      await rename(tmp, target);
      await this.dropOlder(family, target);
      return target;
    } catch (err) {
      throw new ImageUnavailable(source, this.dir, err);
    }
  }

  /** Copies of earlier versions of the same source, made an hour or more before this one (a jail starting now may still bind a recent one). */
  private async dropOlder(family: string, made: string): Promise<void> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const now = (await stat(made)).mtimeMs;
    for (const n of names) {
      const p = join(this.dir, n);
      if (!n.startsWith(`${family}-`) || p === made) continue;
      const st = await stat(p).catch(() => null);
      if (st && st.mtimeMs < now - 3_600_000) await rm(p, { force: true }).catch(() => undefined);
    }
  }
}
