// JSON lines, the one format of the state dir's journals (the outbox's close journal, the usage ledger):
// one record a line, appended whole; read back line by line, each line parsed and checked against its
// schema — a state file is parsed, never trusted. A journal appended with fsync may end in a torn line (a
// crash mid-write): that line never completed, so it never counted (`tornTail`).
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import type { z } from "zod";

/** `records` as JSON lines (each ends in a newline). */
export function jsonLines(records: readonly unknown[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join("");
}

/** Appends one record to `path` (created 0600); with `fsync`, durable before it returns. */
export function appendJsonLine(path: string, record: unknown, o: { fsync?: boolean } = {}): void {
  const fd = openSync(path, "a", 0o600);
  try {
    writeSync(fd, `${JSON.stringify(record)}\n`);
    if (o.fsync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The records of `text` that parse and match `schema` (every parsed value without one), and how many lines
 * did not; with `tornTail`, a last line that is no JSON is not counted (a crash cut it).
 */
export function parseJsonLines<T>(text: string, schema?: z.ZodType<T>, o: { tornTail?: boolean } = {}): { records: T[]; bad: number } {
  const lines = text.split("\n");
  const records: T[] = [];
  let bad = 0;
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      if (!o.tornTail || i < lines.length - 2) bad += 1;
      return;
    }
    if (!schema) {
      records.push(v as T);
      return;
    }
    const r = schema.safeParse(v);
    if (r.success) records.push(r.data);
    else bad += 1;
  });
  return { records, bad };
}
