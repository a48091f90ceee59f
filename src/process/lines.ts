// Splits a byte stream into text lines without holding more than `maxLine` chars of a partial line.
// Bytes go through one streaming UTF-8 decoder: a character split across chunks stays whole.
import { StringDecoder } from "node:string_decoder";

export class LineSplitter {
  private partial = "";
  private dropping = false;
  private decoder: StringDecoder | null = null;
  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLine = 64 * 1024,
  ) {}

  push(chunk: string): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf("\n", start);
      if (nl === -1) break;
      this.append(chunk.slice(start, nl));
      this.emit();
      start = nl + 1;
    }
    this.append(chunk.slice(start));
  }

  /** Raw bytes (or already-decoded text) as they arrive from a socket or a file. */
  pushBytes(chunk: Uint8Array | string): void {
    if (typeof chunk === "string") this.push(chunk);
    else {
      this.decoder ??= new StringDecoder("utf8");
      this.push(this.decoder.write(chunk));
    }
  }

  end(): void {
    if (this.decoder) this.push(this.decoder.end());
    if (this.partial.length > 0 || this.dropping) this.emit();
  }

  private append(text: string): void {
    if (this.dropping) return;
    if (this.partial.length + text.length > this.maxLine) {
      this.partial = (this.partial + text).slice(0, this.maxLine);
      this.dropping = true;
      return;
    }
    this.partial += text;
  }

  private emit(): void {
    const line = this.partial.endsWith("\r") ? this.partial.slice(0, -1) : this.partial;
    this.partial = "";
    this.dropping = false;
    this.onLine(line);
  }
}

/** Keeps the last `max` characters written to it, counting everything it saw. */
export class TailBuffer {
  private chunks: string[] = [];
  private size = 0;
  total = 0;
  constructor(private readonly max: number) {}

  push(text: string): void {
    this.total += text.length;
    this.chunks.push(text);
    this.size += text.length;
    while (this.size > this.max && this.chunks.length > 1) {
      const first = this.chunks.shift() ?? "";
      this.size -= first.length;
    }
    if (this.size > this.max && this.chunks.length === 1) {
      const only = this.chunks[0] ?? "";
      this.chunks = [only.slice(only.length - this.max)];
      this.size = this.max;
    }
  }

  get truncated(): boolean {
    return this.total > this.size;
  }

  toString(): string {
    return this.chunks.join("");
  }
}
