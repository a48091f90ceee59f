// The notes of a running agent: comments on its task by someone other than this seat, as `show` lists
// them (the list only grows: a comment's position is its id). Each is handed to the agent once — the
// adapter says when (agents/port.ts RunInbox) — and the watermark (the first comment not handed over
// yet) is what the session journal keeps, so a resumed run's continuation prompt carries only what the
// agent has not seen. The seat's own comments (its notes, its BLOCKED: and lease comments) are never
// echoed back. `steering.authors` (when set) names the only authors whose comments are handed over;
// after `steering.maxNotesPerRun` notes the rest wait for the next run's continuation prompt (they stay
// unseen in the watermark), so a comment storm cannot flood a running agent.
import type { Note, RunInbox } from "../../agents/port.js";

export interface InboxHooks {
  /** These notes reached the agent (each once), at `at`. */
  delivered?(notes: readonly Note[], at: number): void;
  /** New notes arrived and were offered to the agent's input (a CLI that takes input writes them at once), not yet taken. */
  arrived?(count: number): void;
}

export class NoteInbox implements RunInbox {
  private readonly notes = new Map<string, { note: Note; index: number; delivered: boolean; held: boolean }>();
  private readonly listeners = new Set<() => void>();
  /** Comments before this index were seen by the agent (in its prompt, or handed over as notes). */
  private readonly seen: number;
  private count: number;

  constructor(
    private readonly o: {
      author: string;
      seen: number;
      now: () => number;
      hooks?: InboxHooks;
      /** Only these authors' comments are notes (empty or unset: every author but this seat). */
      authors?: readonly string[] | undefined;
      /** Notes handed to one run at most; later ones wait for the next run. */
      maxNotes?: number | undefined;
    },
  ) {
    this.seen = o.seen;
    this.count = o.seen;
  }

  /** The task's comments as `show` reads them; returns how many new notes arrived. */
  update(comments: readonly { author: string; body: string; createdAt: number }[]): number {
    let added = 0;
    this.count = Math.max(this.count, comments.length);
    const allowed = this.o.authors?.length ? new Set(this.o.authors) : null;
    comments.forEach((c, index) => {
      const id = `c${index}`;
      if (index < this.seen || this.notes.has(id) || c.author === this.o.author) return;
      if (allowed && !allowed.has(c.author)) return;
      const taken = [...this.notes.values()].filter((n) => !n.held).length;
      const held = this.o.maxNotes !== undefined && taken >= this.o.maxNotes;
      this.notes.set(id, { note: { id, author: c.author, body: c.body, postedAt: c.createdAt * 1000 }, index, delivered: false, held });
      if (!held) added += 1;
    });
    if (added > 0) {
      for (const l of [...this.listeners]) l();
      this.o.hooks?.arrived?.(added);
    }
    return added;
  }

  pending(): readonly Note[] {
    return [...this.notes.values()].filter((n) => !n.delivered && !n.held).map((n) => n.note);
  }

  delivered(ids: readonly string[]): void {
    const now = this.o.now();
    const got: Note[] = [];
    for (const id of ids) {
      const n = this.notes.get(id);
      if (!n || n.delivered || n.held) continue;
      n.delivered = true;
      got.push(n.note);
    }
    if (got.length) this.o.hooks?.delivered?.(got, now);
  }

  onNote(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The first comment the agent has not seen (own comments count as seen). */
  watermark(): number {
    const open = [...this.notes.values()].filter((n) => !n.delivered).map((n) => n.index);
    return open.length ? Math.min(...open) : this.count;
  }
}
