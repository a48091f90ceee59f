// The workspace boundary: every read or write the bridge makes of a file the agent could have touched
// (deliverables, summary-named files, outcome and session files, the local loop's file tools). A file
// is opened without following a final link (O_NOFOLLOW) and without blocking (O_NONBLOCK: a FIFO or a
// device never hangs the event loop); the open descriptor is then checked — its real path (Linux:
// /proc/self/fd) inside the root, a regular file, one hard link, within the size cap — and read from
// that descriptor, never by path again. A deliverable is copied from it into a private staging dir:
// the copy, not the workspace path, is what `attach` or an upload ever sees.
import { randomBytes } from "node:crypto";
import { constants, type Stats, lstatSync, mkdirSync, readlinkSync } from "node:fs";
import { type FileHandle, open, unlink } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { PermanentError } from "../errors/index.js";
import { containedPath, realPathOf, underReal } from "./contain.js";

/** A file the boundary refuses to read, write or stage; `why` is a short phrase ("is a symbolic link"). */
export class SandboxRefused extends PermanentError {
  constructor(
    readonly path: string,
    readonly why: string,
  ) {
    super("sandbox_refused", `${path} ${why}`);
  }
}

export interface ReadLimits {
  maxBytes: number;
  /** Allow a file with more than one hard link (files the bridge itself wrote in its state dir). */
  allowHardLinks?: boolean;
}

const READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export function kindOf(st: Pick<Stats, "isFIFO" | "isDirectory" | "isSocket" | "isCharacterDevice" | "isBlockDevice" | "isSymbolicLink">): string {
  if (st.isSymbolicLink()) return "symbolic link";
  if (st.isFIFO()) return "FIFO";
  if (st.isDirectory()) return "directory";
  if (st.isSocket()) return "socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "device";
  return "special file";
}

/** The path the kernel has for an open descriptor (null where /proc is not there). */
function fdPath(fh: FileHandle): string | null {
  try {
    return readlinkSync(`/proc/self/fd/${fh.fd}`);
  } catch {
    return null;
  }
}

const abs = (root: string, p: string) => (isAbsolute(p) ? resolve(p) : resolve(root, p));
const shown = (root: string, p: string) => {
  const rel = relative(resolve(root), abs(root, p));
  return rel === "" ? "." : rel.startsWith("..") ? p : rel;
};

function openFailure(root: string, p: string, err: unknown): SandboxRefused {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ELOOP") return new SandboxRefused(shown(root, p), "is a symbolic link (only a regular file is read)");
  if (code === "ENOENT") return new SandboxRefused(shown(root, p), "does not exist");
  if (code === "ENXIO") return new SandboxRefused(shown(root, p), "is not a regular file (a FIFO or socket)");
  if (code === "EISDIR") return new SandboxRefused(shown(root, p), "is not a regular file (a directory)");
  return new SandboxRefused(shown(root, p), `could not be opened (${code ?? (err as Error).message})`);
}

/** Checks an open descriptor: inside the root, a regular file, one link, within the cap. Throws SandboxRefused. */
async function checkOpen(root: string, p: string, fh: FileHandle, o: ReadLimits): Promise<Stats> {
  const realRoot = realPathOf(root);
  const real = fdPath(fh) ?? realPathOf(abs(root, p));
  if (!underReal(realRoot, real)) throw new SandboxRefused(shown(root, p), "resolves outside the workspace");
  const st = await fh.stat();
  if (!st.isFile()) throw new SandboxRefused(shown(root, p), `is not a regular file (a ${kindOf(st)})`);
  if (st.nlink > 1 && !o.allowHardLinks)
    throw new SandboxRefused(shown(root, p), `has ${st.nlink} hard links (a hard link can be a file outside the workspace)`);
  if (st.size > o.maxBytes) throw new SandboxRefused(shown(root, p), `is ${st.size} bytes, more than the ${o.maxBytes}-byte limit`);
  return st;
}

/** Opens `p` (relative to `root`, or absolute) for reading through the boundary; the caller closes it. */
export async function openInside(root: string, p: string, o: ReadLimits): Promise<{ fh: FileHandle; size: number }> {
  // The directories on the way must stay inside; the file itself is opened without following a link.
  if (containedPath(root, dirname(abs(root, p))) === null) throw new SandboxRefused(shown(root, p), "is outside the workspace");
  let fh: FileHandle;
  try {
    fh = await open(abs(root, p), READ);
  } catch (err) {
    throw openFailure(root, p, err);
  }
  try {
    const st = await checkOpen(root, p, fh, o);
    return { fh, size: st.size };
  } catch (err) {
    await fh.close();
    throw err;
  }
}

/** Reads at most maxBytes from an open descriptor (a file that grew past the cap is refused). */
async function readAll(fh: FileHandle, size: number, o: ReadLimits, what: string): Promise<Buffer> {
  const buf = Buffer.alloc(Math.min(o.maxBytes, size) + 1);
  let total = 0;
  for (;;) {
    const { bytesRead } = await fh.read(buf, total, buf.length - total, total);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total >= buf.length) break;
  }
  if (total > o.maxBytes) throw new SandboxRefused(what, `grew past the ${o.maxBytes}-byte limit while it was read`);
  return buf.subarray(0, total);
}

export async function readBytesInside(root: string, p: string, o: ReadLimits): Promise<Buffer> {
  const { fh, size } = await openInside(root, p, o);
  try {
    return await readAll(fh, size, o, shown(root, p));
  } finally {
    await fh.close();
  }
}

export async function readTextInside(root: string, p: string, o: ReadLimits): Promise<string> {
  return (await readBytesInside(root, p, o)).toString("utf8");
}

/**
 * Copies a workspace file (checked as above) into `stagingDir` — a private directory of the bridge —
 * under a fresh name, and returns the copy's path. Only the copy is handed on (attach, upload).
 */
export async function stageCopy(root: string, p: string, stagingDir: string, o: ReadLimits): Promise<string> {
  const bytes = await readBytesInside(root, p, o);
  mkdirSync(stagingDir, { recursive: true, mode: 0o700 });
  const st = lstatSync(stagingDir);
  if (!st.isDirectory() || st.isSymbolicLink()) throw new SandboxRefused(stagingDir, "(the staging dir) is not a directory");
  const target = join(stagingDir, `${randomBytes(8).toString("hex")}-${safeLeaf(p)}`);
  const out = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    await out.writeFile(bytes);
  } finally {
    await out.close();
  }
  return target;
}

/** A leaf name that is safe as a file name anywhere: [A-Za-z0-9._-], never a leading '-' or '.'. */
export function safeLeaf(p: string): string {
  const leaf = p.split(/[\\/]/).pop() ?? "";
  return (
    leaf
      .replace(/[^A-Za-z0-9._-]/g, "_")
      .replace(/^[-.]+/, "_")
      .slice(0, 120) || "_"
  );
}

/** lstat of a path inside the root (no link followed), or null when it is missing or outside. */
export function lstatInside(root: string, p: string): Stats | null {
  const full = abs(root, p);
  if (containedPath(root, dirname(full)) === null) return null;
  try {
    return lstatSync(full);
  } catch {
    return null;
  }
}

/** Creates the missing directories of `dir` under `root`, refusing a link or a non-directory on the way. */
function mkdirsInside(root: string, dir: string): void {
  const realRoot = realPathOf(root);
  const rel = relative(realRoot, realPathOf(dir));
  if (rel.startsWith("..") || isAbsolute(rel)) throw new SandboxRefused(shown(root, dir), "is outside the workspace");
  let cur = realRoot;
  for (const part of rel.split(sep).filter(Boolean)) {
    cur = join(cur, part);
    let st: Stats | null = null;
    try {
      st = lstatSync(cur);
    } catch {
      mkdirSync(cur);
      continue;
    }
    if (!st.isDirectory()) throw new SandboxRefused(shown(root, cur), `is not a directory (a ${kindOf(st)})`);
  }
}

/**
 * Writes a text file inside the root: parents created without following links, the file opened with
 * O_NOFOLLOW and checked (inside, regular, one link) before it is truncated and written — a link or a
 * hard link the agent planted is refused, never written through.
 */
export async function writeTextInside(root: string, p: string, content: string): Promise<string> {
  const full = abs(root, p);
  mkdirsInside(root, dirname(full));
  const flags = constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  let fh: FileHandle;
  let created = true;
  try {
    // O_EXCL tells exactly whether this call made the file (only such a file is removed on a refusal).
    fh = await open(full, flags | constants.O_CREAT | constants.O_EXCL, 0o644).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err;
      created = false;
      return open(full, flags);
    });
  } catch (err) {
    throw openFailure(root, p, err);
  }
  try {
    await checkOpen(root, p, fh, { maxBytes: Number.MAX_SAFE_INTEGER });
    await fh.truncate(0);
    await fh.write(content, 0, "utf8");
  } catch (err) {
    const real = fdPath(fh);
    await fh.close();
    if (created && real) await unlink(real).catch(() => undefined);
    throw err;
  }
  await fh.close();
  return relative(realPathOf(root), realPathOf(full));
}
