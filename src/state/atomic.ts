// The one way a state file is (re)written whole: a temp file beside it (0600, O_EXCL), fsync, rename
// over the old one, fsync of the directory — a crash leaves the old file or the new one, never half of
// either. Failures are one typed error (StateWriteError, with the path and the cause); each caller
// decides what a failed write means for it (the status file: logged; the outbox: the close fails).
// `replaceWith` is the same move for what is filled asynchronously (a copied image, a saved folder): a
// temp beside the target, filled by the caller, renamed over it; the temp is removed however it ends.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { BridgeError } from "../errors/index.js";

export class StateWriteError extends BridgeError {
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super("state_write", `could not write the state file ${path}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

let counter = 0;
const tempOf = (path: string): string => join(dirname(path), `.${basename(path)}.${process.pid}.${++counter}.tmp`);

/** Replaces `path` with `data` atomically (and durably: `fsync` of the file and its directory). */
export function writeStateFile(path: string, data: string | Uint8Array, o: { mode?: number } = {}): void {
  const tmp = tempOf(path);
  try {
    const fd = openSync(tmp, "wx", o.mode ?? 0o600);
    try {
      writeSync(fd, typeof data === "string" ? Buffer.from(data) : data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    syncDir(dirname(path));
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new StateWriteError(path, err);
  }
}

/**
 * Replaces `path` with what `fill` makes at the temp path it is given (a file, or a folder with
 * `folder: true`: the old folder is removed first, since a rename cannot replace a full one). The
 * caller's error is thrown as it was; the temp never stays.
 */
export async function replaceWith(path: string, fill: (tmp: string) => Promise<void>, o: { folder?: boolean } = {}): Promise<void> {
  const tmp = tempOf(path);
  try {
    await fill(tmp);
    if (o.folder) await rm(path, { recursive: true, force: true });
    await rename(tmp, path);
    syncDir(dirname(path));
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** fsync of a directory (the rename in it is durable); a filesystem that cannot is not an error. */
export function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on a directory; the rename itself already happened.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
