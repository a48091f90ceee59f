// Operator notes for a running agent — comments on its task by someone other than this seat — and how
// one reads to the agent, whatever the channel (a user turn, a tool answer, a user message of the local
// loop, a JSON line of the command agent's inbox): who wrote it, when, and that it takes precedence
// over the original task text. Text is capped and control characters escaped.
import { capText, escapeControls } from "../result/text.js";

export interface Note {
  /** Stable id (the comment's position on the task) for exactly-once delivery. */
  id: string;
  author: string;
  body: string;
  /** When it was posted on the board (epoch ms). */
  postedAt: number;
}

/** The notes of a running agent: the adapter takes what is pending and says what it handed over. */
export interface RunInbox {
  pending(): readonly Note[];
  /** These notes reached the agent now (each is delivered once). */
  delivered(ids: readonly string[]): void;
  /** Called when a new note arrives; returns the unsubscribe. */
  onNote(listener: () => void): () => void;
}

export const NOTE_MAX_BYTES = 16 * 1024;

export function noteText(n: Note): string {
  return capText(escapeControls(n.body), NOTE_MAX_BYTES);
}

/** The note as a message to the agent; `[note <id>]` lets a channel that echoes it tell which one arrived. */
export function renderNote(n: Note): string {
  return (
    `[note ${n.id}] Operator note from @${escapeControls(n.author).slice(0, 100)} (posted ${new Date(n.postedAt).toISOString()} on the task's board). ` +
    `It takes precedence over the original task text; if it changes the scope, acknowledge it with a kanban_heartbeat note, then follow it:\n${noteText(n)}`
  );
}

/** The ids a rendered note carries (what an echo of it names). */
export function noteIdsIn(text: string): string[] {
  return [...text.matchAll(/\[note ([A-Za-z0-9_:.-]+)\]/g)].map((m) => m[1] ?? "");
}

/** The JSON line of a note in the command agent's inbox file. */
export function noteLine(n: Note): string {
  return `${JSON.stringify({ id: n.id, author: n.author, posted_at: new Date(n.postedAt).toISOString(), body: noteText(n) })}\n`;
}
