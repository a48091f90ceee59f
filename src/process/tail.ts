// Follows a file the child appends to (agent output survives a bridge restart this way: no pipe to
// break). Keeps the file bounded: past maxBytes it is truncated; O_APPEND writers continue at 0. The
// file is opened once — without following a link, and only if it is a regular file — and read through
// that descriptor from then on, never by path again: an agent that swaps its output file for a link to
// a host file, or for a FIFO, gets neither read nor truncated.
import { closeSync, constants, fstatSync, ftruncateSync, openSync, readSync } from "node:fs";

/** Opens an output file to follow: a regular file, not a link (a FIFO or device is refused, never waited on). */
function openOutput(path: string): number {
  const fd = openSync(path, constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  const st = fstatSync(fd);
  if (!st.isFile() || st.nlink !== 1) {
    closeSync(fd);
    throw new Error(`${path} is not the agent's output file (not a regular file with one link): not followed`);
  }
  return fd;
}

export class FileTailer {
  private offset = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly buf = Buffer.alloc(256 * 1024);
  private readonly decoder = new TextDecoder("utf-8");
  private fd: number | null;

  constructor(
    readonly path: string,
    private readonly onText: (text: string) => void,
    private readonly maxBytes: number,
    startAt: "start" | "tail" = "start",
  ) {
    this.fd = openOutput(path);
    if (startAt === "tail") this.offset = Math.max(0, fstatSync(this.fd).size - 64 * 1024);
  }

  start(intervalMs = 100): void {
    const tick = () => {
      this.poll();
      this.timer = setTimeout(tick, intervalMs);
      this.timer.unref();
    };
    tick();
  }

  /** Stops following (a last read first) and lets go of the file. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.poll();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  poll(): void {
    const fd = this.fd;
    if (fd === null) return;
    let size = fstatSync(fd).size;
    if (size < this.offset) this.offset = 0; // truncated under us
    while (this.offset < size) {
      const n = readSync(fd, this.buf, 0, Math.min(this.buf.length, size - this.offset), this.offset);
      if (n <= 0) break;
      this.offset += n;
      this.onText(this.decoder.decode(this.buf.subarray(0, n), { stream: true }));
    }
    if (size > this.maxBytes) {
      ftruncateSync(fd, 0);
      this.offset = 0;
      size = 0;
    }
  }
}
