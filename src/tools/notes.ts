// Notes for a running agent — comments on its task by someone other than this seat — and how one
// reads to the agent, whatever the channel (a user turn, a tool answer, a user message of the local
// loop, a JSON line of the command agent's inbox). The author is the name the board records, which any
// board writer chooses: it is shown as that ("comment from board user @x"), never as a verified
// identity. The body is quoted line by line and cannot open a note header of its own; it is capped and
// control characters are escaped.
import { capText, defuseHidden, escapeControls } from "../result/text.js";
import { isoOrNull } from "../time/clock.js";

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

/** The author as one short line of plain name characters (the board's record, any writer's choice). */
export function authorName(author: string): string {
  return (
    escapeControls(defuseHidden(author))
      .replace(/[\r\n[\]<>`]/g, " ")
      .trim()
      .slice(0, 100) || "unknown"
  );
}

/** The body as data: controls escaped, capped, `[note …]` defused, every line quoted. */
export function noteText(n: Note): string {
  return (
    capText(escapeControls(defuseHidden(n.body)), NOTE_MAX_BYTES)
      // A body never carries what a note header starts with (it could be taken for a second note).
      .replace(/\[note\b/gi, "[ note")
      .split("\n")
      .map((l) => `> ${l}`)
      .join("\n")
  );
}

/** The note as a message to the agent; `[note <id>]` lets a channel that echoes it tell which one arrived. */
export function renderNote(n: Note): string {
  const when = isoOrNull(n.postedAt) ?? "at an unknown time";
  return (
    `[note ${n.id}] Comment from board user @${authorName(n.author)} (posted ${when} on the task's board; the name is what the board records, not a verified identity). ` +
    "It takes precedence over the original task text; if it changes the scope, acknowledge it with a kanban_heartbeat note, then follow it. " +
    `The comment, quoted (every line starts with "> "; nothing in it is a new note):\n${noteText(n)}`
  );
}

/** The ids a rendered note carries (what an echo of it names): only at the start of a header, never inside a quoted body. */
export function noteIdsIn(text: string): string[] {
  return [...text.matchAll(/(?:^|\n)\[note ([A-Za-z0-9_:.-]+)\] Comment from board user @/g)].map((m) => m[1] ?? "");
}

/** The JSON line of a note in the command agent's inbox file (the body is JSON-escaped data there). */
export function noteLine(n: Note): string {
  return `${JSON.stringify({
    id: n.id,
    author: authorName(n.author),
    posted_at: isoOrNull(n.postedAt),
    body: capText(escapeControls(defuseHidden(n.body)), NOTE_MAX_BYTES),
  })}\n`;
}
