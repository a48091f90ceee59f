// `outbox replay` (and daemon start): retry every open entry. Closes are fenced on the recorded run
// id, so a replay can never overwrite someone else's run; lease losses only re-send their alert.
import type { Outbox, OutboxEntry } from "../outbox/outbox.js";
import { type CloseResult, type Closer, leaseOf } from "./closer.js";

export interface ReplayItem {
  entry: OutboxEntry;
  result: CloseResult | "alerted" | "alert_failed";
}

export async function replayOutbox(outbox: Outbox, closer: Closer, filter?: (e: OutboxEntry) => boolean): Promise<ReplayItem[]> {
  const out: ReplayItem[] = [];
  for (const entry of outbox.open()) {
    if (filter && !filter(entry)) continue;
    if (entry.state === "lease_lost") {
      const ok = await closer.alert("lease_lost", entry, entry.error);
      outbox.mark(entry.id, "lease_lost", { alerted: ok });
      out.push({ entry, result: ok ? "alerted" : "alert_failed" });
      continue;
    }
    out.push({ entry, result: await closer.apply(entry, leaseOf(entry)) });
  }
  return out;
}
