// The outbox's append-only journal: JSON lines (state/jsonl.ts) with fsync per record; reading tolerates a
// torn last line (a crash mid-write) and checks every record against its schema.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import type { z } from "zod";
import { reportBadState } from "../state/quarantine.js";
import { writeStateFile } from "../state/atomic.js";
import { appendJsonLine, jsonLines, parseJsonLines } from "../state/jsonl.js";

export class Journal<T> {
  constructor(
    readonly path: string,
    private readonly schema?: z.ZodType<T>,
  ) {}

  append(record: T): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    appendJsonLine(this.path, record, { fsync: true });
  }

  read(): T[] {
    if (!existsSync(this.path)) return [];
    const { records, bad } = parseJsonLines(readFileSync(this.path, "utf8"), this.schema, { tornTail: true });
    // The good records stay in use; the file is left as it is for the operator to look at.
    if (bad > 0) reportBadState(this.path, `${bad} record(s) did not match the journal's schema and were ignored`);
    return records;
  }

  /** Atomically replaces the journal with `records` (state/atomic.ts: temp, fsync, rename, dir fsync). */
  rewrite(records: readonly T[]): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    writeStateFile(this.path, jsonLines(records));
  }
}
