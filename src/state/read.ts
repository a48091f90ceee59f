// The one way the bridge reads a small file it did not write itself in this process (outcome and
// session files the agent wrote, state files): through the workspace boundary (agent-files/files.ts: a
// regular file only — never a FIFO, device, link or hard link —, inside its directory, size-capped),
// and bounded in time.
import { dirname } from "node:path";
import { SandboxRefused, readTextInside } from "../agent-files/files.js";

/** Text of a small regular file, or null when absent. Anything else is an error string. */
export async function readSmallFile(
  path: string,
  maxBytes = 1024 * 1024,
  timeoutMs = 5000,
  root = dirname(path),
): Promise<{ text: string | null } | { error: string }> {
  const read = async (): Promise<{ text: string | null } | { error: string }> => {
    try {
      return { text: await readTextInside(root, path, { maxBytes }) };
    } catch (err) {
      if (err instanceof SandboxRefused) return err.why === "does not exist" ? { text: null } : { error: `${path} ${err.why}` };
      return { error: `${path} could not be read: ${(err as Error).message}` };
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ error: string }>((r) => {
    timer = setTimeout(() => r({ error: `reading ${path} took longer than ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    return await Promise.race([read(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
