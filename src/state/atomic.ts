// The one way a state file is (re)written whole: a temp file beside it (0600, O_EXCL), fsync, rename
// over the old one, fsync of the directory — a crash leaves the old file or the new one, never half of
// either. Failures are one typed error (StateWriteError, with the path and the cause); each caller
// decides what a failed write means for it (the status file: logged; the outbox: the close fails).
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
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

/** Replaces `path` with `data` atomically (and durably: `fsync` of the file and its directory). */
export function writeStateFile(path: string, data: string | Uint8Array, o: { mode?: number } = {}): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${++counter}.tmp`);
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
