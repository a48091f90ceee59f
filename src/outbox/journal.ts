// Append-only JSON-lines journal with fsync per record. Reading tolerates a torn last line (a crash
// mid-write), which a strict JSON-lines parser would reject — hence plain split + JSON.parse here —
// and checks every record against its schema: state files are parsed, never trusted.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { z } from "zod";
import { reportBadState } from "../state/quarantine.js";
import { writeStateFile } from "../state/atomic.js";

export class Journal<T> {
  constructor(
    readonly path: string,
    private readonly schema?: z.ZodType<T>,
  ) {}

  append(record: T): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
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
    const lines = readFileSync(this.path, "utf8").split("\n");
    let bad = 0;
    lines.forEach((line, i) => {
      if (!line.trim()) return;
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch {
        // a torn write at crash time (the last line) never completed, so it never counted
        if (i < lines.length - 2) bad += 1;
        return;
      }
      if (!this.schema) {
        out.push(v as T);
        return;
      }
      const r = this.schema.safeParse(v);
      if (r.success) out.push(r.data);
      else bad += 1;
    });
    // The good records stay in use; the file is left as it is for the operator to look at.
    if (bad > 0) reportBadState(this.path, `${bad} record(s) did not match the journal's schema and were ignored`);
    return out;
  }

  /** Atomically replaces the journal with `records` (state/atomic.ts: temp, fsync, rename, dir fsync). */
  rewrite(records: readonly T[]): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    writeStateFile(this.path, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
  }
}
