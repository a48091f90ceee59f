// The outbox: every intended close is journaled (fsync) before its CLI call and marked after, so a
// crash, a lost lease or a dead webhook never loses a result. States:
//   pending → done | lease_lost | failed (close did not land; alert queued or delivered) | dead (alert not delivered)
//           | refused (the board refused this close for good: a templated block was journaled in its place)
//   an open entry → acknowledged (a person dealt with it) | dropped (a person discarded it): `outbox ack|drop <id> --reason`
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

const STATES = ["pending", "done", "lease_lost", "failed", "dead", "refused", "acknowledged", "dropped"] as const;
/** What a person settled by hand (`outbox ack` / `outbox drop`): no longer open, kept with its reason. */
const SETTLED: ReadonlySet<OutboxState> = new Set(["acknowledged", "dropped"]);
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
  /** Who settled it by hand and why (acknowledged, dropped). */
  note: z.string().nullable().optional(),
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
    note: z.string().optional(),
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

  mark(id: string, state: OutboxState, extra: { alerted?: boolean; error?: string | null; note?: string } = {}): void {
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
        if (r.note !== undefined) e.note = r.note;
        e.updatedAt = r.at;
      }
    }
    return [...byId.values()];
  }

  get(id: string): OutboxEntry | undefined {
    return this.entries().find((e) => e.id === id);
  }

  /** Entries that still need someone: not applied, or applied nowhere and not yet alerted, and not settled by hand. */
  open(): OutboxEntry[] {
    return this.entries().filter((e) => e.state !== "done" && e.state !== "refused" && !SETTLED.has(e.state) && !(e.state === "lease_lost" && e.alerted));
  }

  /**
   * A person settles an entry by hand (`outbox ack` — dealt with; `outbox drop` — discarded), with a reason: journaled,
   * no longer open (no replay, no alert, out of the backlog). An entry still pending is a close in flight: refused.
   * `id` may be a unique prefix. Returns the entry as it was, or why it was refused (no such entry, ambiguous, not open).
   */
  settle(id: string, how: "acknowledged" | "dropped", reason: string, by: string): { settled: OutboxEntry } | { refused: string } {
    const all = this.entries();
    const hits = all.filter((e) => e.id === id || (id.length >= 4 && e.id.startsWith(id)));
    if (hits.length === 0) return { refused: `no outbox entry ${JSON.stringify(id)} (hermes-bridge outbox list shows the open ones)` };
    if (hits.length > 1) return { refused: `${JSON.stringify(id)} names ${hits.length} entries: give more of the id` };
    const e = hits[0] as OutboxEntry;
    if (e.state === "pending") return { refused: `entry ${e.id} is pending: its close may be in flight — stop the seat (or let it finish), then settle it` };
    if (e.state === "done" || e.state === "refused" || SETTLED.has(e.state)) return { refused: `entry ${e.id} is ${e.state}: nothing to settle` };
    this.mark(e.id, how, { note: `${how} by ${by}: ${reason}` });
    return { settled: e };
  }

  backlog(): number {
    return this.open().length;
  }

  /** Drops finished entries from the journal (kept: everything still open, lease losses, and what a person settled, with its reason). */
  compact(): void {
    const keep = this.entries().filter((e) => e.state !== "done" && e.state !== "refused");
    this.journal.rewrite(keep.map((entry) => ({ op: "intent" as const, entry })));
  }
}
