// The outbox: every intended close is journaled (fsync) before its CLI call and marked after, so a
// crash, a lost lease or a dead webhook never loses a result. States:
//   pending → done | lease_lost | failed (alert delivered) | dead (alert not delivered)
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { CloseBlockKind } from "../board/port.js";
import { Journal } from "./journal.js";

export type CloseIntent =
  | { type: "complete"; summary: string; metadata: Record<string, unknown> }
  | { type: "block"; reason: string; kind?: CloseBlockKind };

export type OutboxState = "pending" | "done" | "lease_lost" | "failed" | "dead";

export interface OutboxEntry {
  id: string;
  at: string;
  board: string;
  taskId: string;
  runId: number | null;
  traceId: string;
  seat: string;
  workspace: string;
  intent: CloseIntent;
  state: OutboxState;
  alerted: boolean;
  error: string | null;
  updatedAt: string;
}

type Record_ =
  | { op: "intent"; entry: OutboxEntry }
  | { op: "state"; id: string; state: OutboxState; alerted?: boolean; error?: string | null; at: string };

export class Outbox {
  private readonly journal: Journal<Record_>;
  constructor(
    readonly dir: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.journal = new Journal(join(dir, "outbox.jsonl"));
  }

  get path(): string {
    return this.journal.path;
  }

  record(e: Omit<OutboxEntry, "id" | "at" | "state" | "alerted" | "error" | "updatedAt">): OutboxEntry {
    const at = this.now().toISOString();
    const entry: OutboxEntry = { ...e, id: randomUUID(), at, state: "pending", alerted: false, error: null, updatedAt: at };
    this.journal.append({ op: "intent", entry });
    return entry;
  }

  mark(id: string, state: OutboxState, extra: { alerted?: boolean; error?: string | null } = {}): void {
    this.journal.append({ op: "state", id, state, ...extra, at: this.now().toISOString() });
  }

  entries(): OutboxEntry[] {
    const byId = new Map<string, OutboxEntry>();
    for (const r of this.journal.read()) {
      if (r.op === "intent") byId.set(r.entry.id, { ...r.entry });
      else {
        const e = byId.get(r.id);
        if (!e) continue;
        e.state = r.state;
        if (r.alerted !== undefined) e.alerted = r.alerted;
        if (r.error !== undefined) e.error = r.error;
        e.updatedAt = r.at;
      }
    }
    return [...byId.values()];
  }

  /** Entries that still need someone: not applied, or applied nowhere and not yet alerted. */
  open(): OutboxEntry[] {
    return this.entries().filter((e) => e.state !== "done" && !(e.state === "lease_lost" && e.alerted));
  }

  backlog(): number {
    return this.open().length;
  }

  /** Drops finished entries from the journal (kept: everything still open, and lease losses). */
  compact(): void {
    const keep = this.entries().filter((e) => e.state !== "done");
    this.journal.rewrite(keep.map((entry) => ({ op: "intent" as const, entry })));
  }
}
