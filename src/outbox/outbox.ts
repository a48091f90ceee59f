// The outbox: every intended close is journaled (fsync) before its CLI call and marked after, so a
// crash, a lost lease or a dead webhook never loses a result. States:
//   pending → done | lease_lost | failed (close did not land; alert queued or delivered) | dead (alert not delivered)
//           | refused (the board refused this close for good: a templated block was journaled in its place)
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { Journal } from "./journal.js";
import { statePath } from "../state/layout.js";

const CloseIntentSchema = z.discriminatedUnion("type", [
  /** `review`: a review hand-off (`request-review`) instead of `complete`. */
  z.object({
    type: z.literal("complete"),
    summary: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    review: z.object({ reviewer: z.string().nullable() }).optional(),
  }),
  z.object({ type: z.literal("block"), reason: z.string(), kind: z.enum(["needs_input", "capability", "transient"]).optional() }),
  /** A run cut by the seat's usage limit, parked for this seat (seat.onLimit: wait). */
  z.object({ type: z.literal("schedule"), reason: z.string() }),
  /** A run cut by the seat's usage limit, handed back to the lane (seat.onLimit: handoff): the comment, then `reclaim`. */
  z.object({ type: z.literal("release"), reason: z.string(), comment: z.string() }),
]);
export type CloseIntent = z.output<typeof CloseIntentSchema>;

const STATES = ["pending", "done", "lease_lost", "failed", "dead", "refused"] as const;
export type OutboxState = (typeof STATES)[number];

const EntrySchema = z.object({
  id: z.string(),
  at: z.string(),
  board: z.string(),
  taskId: z.string(),
  runId: z.number().int().nullable(),
  /** The claim's own lock, for an entry whose run id was never read (Lease.claimLock). */
  claimLock: z.string().optional(),
  traceId: z.string(),
  seat: z.string(),
  workspace: z.string(),
  intent: CloseIntentSchema,
  state: z.enum(STATES),
  alerted: z.boolean(),
  error: z.string().nullable(),
  updatedAt: z.string(),
});
export type OutboxEntry = z.output<typeof EntrySchema>;

const RecordSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("intent"), entry: EntrySchema }),
  z.object({
    op: z.literal("state"),
    id: z.string(),
    state: z.enum(STATES),
    alerted: z.boolean().optional(),
    error: z.string().nullable().optional(),
    at: z.string(),
  }),
]);
type OutboxRecord = z.output<typeof RecordSchema>;

export class Outbox {
  private readonly journal: Journal<OutboxRecord>;
  constructor(
    readonly dir: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.journal = new Journal(statePath(dir, "outbox"), RecordSchema);
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

  get(id: string): OutboxEntry | undefined {
    return this.entries().find((e) => e.id === id);
  }

  /** Entries that still need someone: not applied, or applied nowhere and not yet alerted. */
  open(): OutboxEntry[] {
    return this.entries().filter((e) => e.state !== "done" && e.state !== "refused" && !(e.state === "lease_lost" && e.alerted));
  }

  backlog(): number {
    return this.open().length;
  }

  /** Drops finished entries from the journal (kept: everything still open, and lease losses). */
  compact(): void {
    const keep = this.entries().filter((e) => e.state !== "done" && e.state !== "refused");
    this.journal.rewrite(keep.map((entry) => ({ op: "intent" as const, entry })));
  }
}
