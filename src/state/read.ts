// The one way the bridge reads a file it did not write itself in this process (outcome files, state
// files): a regular file only — never a FIFO, device or symlink, which could hang the bridge or lead
// it elsewhere —, size-capped, and bounded in time.
import { constants } from "node:fs";
import { lstat, open } from "node:fs/promises";

/** Text of a small regular file, or null when absent. Anything else is an error string. */
export async function readSmallFile(path: string, maxBytes = 1024 * 1024, timeoutMs = 5000): Promise<{ text: string | null } | { error: string }> {
  let st: Awaited<ReturnType<typeof lstat>>;
  try {
    st = await lstat(path);
  } catch {
    return { text: null };
  }
  if (st.isSymbolicLink()) return { error: `${path} is a symbolic link (only a regular file is read)` };
  if (!st.isFile()) return { error: `${path} is not a regular file (a ${kindOf(st)})` };
  if (st.size > maxBytes) return { error: `${path} is ${st.size} bytes, more than the ${maxBytes}-byte limit` };
  const read = async () => {
    // O_NOFOLLOW | O_NONBLOCK: a file swapped for a symlink or FIFO since the lstat cannot block or escape.
    const fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const fst = await fh.stat();
      if (!fst.isFile()) return { error: `${path} is not a regular file` };
      const buf = Buffer.alloc(Math.min(maxBytes, fst.size) + 1);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      if (bytesRead > maxBytes) return { error: `${path} grew past the ${maxBytes}-byte limit` };
      return { text: buf.subarray(0, bytesRead).toString("utf8") };
    } finally {
      await fh.close();
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ error: string }>((r) => {
    timer = setTimeout(() => r({ error: `reading ${path} took longer than ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    return await Promise.race([read().catch((err: unknown) => ({ error: `${path} could not be read: ${(err as Error).message}` })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function kindOf(st: { isFIFO(): boolean; isDirectory(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (st.isFIFO()) return "FIFO";
  if (st.isDirectory()) return "directory";
  if (st.isSocket()) return "socket";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "device";
  return "special file";
}
