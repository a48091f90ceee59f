// Follows a file the child appends to (agent output survives a bridge restart this way: no pipe to
// break). Keeps the file bounded: past maxBytes it is truncated; O_APPEND writers continue at 0.
import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, readSync } from "node:fs";

export class FileTailer {
  private offset = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly buf = Buffer.alloc(256 * 1024);
  private readonly decoder = new TextDecoder("utf-8");

  constructor(
    private readonly path: string,
    private readonly onText: (text: string) => void,
    private readonly maxBytes: number,
    startAt: "start" | "tail" = "start",
  ) {
    if (startAt === "tail" && existsSync(path)) {
      const fd = openSync(path, "r");
      try {
        this.offset = Math.max(0, fstatSync(fd).size - 64 * 1024);
      } finally {
        closeSync(fd);
      }
    }
  }

  start(intervalMs = 100): void {
    const tick = () => {
      this.poll();
      this.timer = setTimeout(tick, intervalMs);
      this.timer.unref();
    };
    tick();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.poll();
  }

  poll(): void {
    if (!existsSync(this.path)) return;
    const fd = openSync(this.path, "r+");
    try {
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
    } finally {
      closeSync(fd);
    }
  }
}
