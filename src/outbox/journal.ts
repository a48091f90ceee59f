// Append-only JSON-lines journal with fsync per record. Reading tolerates a torn last line (a crash
// mid-write), which a strict JSON-lines parser would reject — hence plain split + JSON.parse here.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";

export class Journal<T> {
  constructor(readonly path: string) {}

  append(record: T): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const fd = openSync(this.path, "a", 0o600);
    try {
      writeSync(fd, `${JSON.stringify(record)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  read(): T[] {
    if (!existsSync(this.path)) return [];
    const out: T[] = [];
    for (const line of readFileSync(this.path, "utf8").split("\n")) {
      if (!line.trim()) continue;
      try {
        out.push(JSON.parse(line) as T);
      } catch {
        // torn write at crash time: the record never completed, so it never counted
      }
    }
    return out;
  }

  /** Atomically replaces the journal with `records` (write temp, fsync, rename). */
  rewrite(records: readonly T[]): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.tmp`;
    const fd = openSync(tmp, "w", 0o600);
    try {
      for (const r of records) writeSync(fd, `${JSON.stringify(r)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path);
  }
}
