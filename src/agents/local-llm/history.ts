// The local-LLM loop's session: its message history, saved after every step in the task's state
// directory (bounded, redacted, 0600), so a cut run resumes where it stopped. The handle is the id
// stored in the file: a file with another id, or none, cannot be resumed.
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { z } from "zod";
import { readSmallFile } from "../../state/read.js";
import { writeStateFile } from "../../state/atomic.js";

export type Msg = Record<string, unknown>;

const HistorySchema = z.object({ id: z.string().min(1), model: z.string(), messages: z.array(z.record(z.string(), z.unknown())).min(2) });

export const HISTORY_FILE = "local-llm-history.json";
const MAX_FILE_BYTES = 8 * 1024 * 1024;

export function newSessionId(taskId: string): string {
  return `local-${taskId}-${randomUUID().slice(0, 8)}`;
}

/**
 * Keeps the system prompt and the first user message, then as many of the latest messages as fit in
 * `maxChars`; never starts the kept tail with a tool answer whose call was dropped.
 */
export function boundHistory(messages: readonly Msg[], maxChars: number): Msg[] {
  const head = messages.slice(0, 2);
  const rest = messages.slice(2);
  const size = (m: Msg) => JSON.stringify(m).length;
  let total = [...head, ...rest].reduce((n, m) => n + size(m), 0);
  let start = 0;
  while (total > maxChars && start < rest.length) total -= size(rest[start++] as Msg);
  while (start < rest.length && rest[start]?.role === "tool") start += 1;
  const dropped = start;
  const tail = rest.slice(start);
  return dropped > 0
    ? [...head, { role: "user", content: `(${dropped} earlier messages of this session were dropped to fit the history limit)` }, ...tail]
    : [...head, ...tail];
}

export function saveHistory(dir: string, doc: { id: string; model: string; messages: Msg[] }, redact: (v: Msg[]) => Msg[], maxChars: number): void {
  const f = join(dir, HISTORY_FILE);
  writeStateFile(f, JSON.stringify({ ...doc, messages: redact(boundHistory(doc.messages, maxChars)) }));
}

/** The saved history of session `id`, or why it cannot be resumed. */
export async function loadHistory(dir: string, id: string): Promise<{ messages: Msg[] } | { error: string }> {
  const r = await readSmallFile(join(dir, HISTORY_FILE), MAX_FILE_BYTES);
  if ("error" in r) return r;
  if (r.text === null) return { error: `no saved history for session ${id}` };
  let doc: unknown;
  try {
    doc = JSON.parse(r.text);
  } catch (err) {
    return { error: `the saved history is not JSON: ${(err as Error).message}` };
  }
  const parsed = HistorySchema.safeParse(doc);
  if (!parsed.success) return { error: "the saved history does not have the expected shape" };
  if (parsed.data.id !== id) return { error: `the saved history belongs to session ${parsed.data.id}, not ${id}` };
  return { messages: parsed.data.messages };
}
