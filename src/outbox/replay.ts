// `outbox replay` (and daemon start): retry every open entry. Closes are fenced on the recorded run
// id, so a replay can never overwrite someone else's run; lease losses only re-send their alert.
import type { CloseResult, Closer } from "./closer.js";
import type { Outbox, OutboxEntry } from "./outbox.js";

export interface ReplayItem {
  entry: OutboxEntry;
  result: CloseResult | "alert_queued";
}

export async function replayOutbox(outbox: Outbox, closer: Closer, filter?: (e: OutboxEntry) => boolean): Promise<ReplayItem[]> {
  const out: ReplayItem[] = [];
  for (const entry of outbox.open()) {
    if (filter && !filter(entry)) continue;
    if (entry.state === "lease_lost") {
      closer.alert("lease_lost", entry, entry.error);
      out.push({ entry, result: "alert_queued" });
      continue;
    }
    out.push({ entry, result: await closer.apply(entry) });
  }
  return out;
}
