// How long a run may go on without reaching its agent's API (agent.unreachableSeconds).
import type { AgentEvent } from "../../agents/port.js";
import type { Stop } from "../record.js";
import type { Work } from "../context.js";

/**
 * The agent's word that it cannot reach its API — or the run's proxy finding no answer from the kind's API
 * host, the bridge's own observation — starts a watch: an answer from the API (a tool call, usage,
 * an outcome) ends it; none within agent.unreachableSeconds stops the run (decide.ts: handed back, the seat
 * paused until its own check gets through) — never a run that waits out its deadline in a reconnect loop.
 */
export function unreachableWatch(w: Pick<Work, "record" | "seat"> & { stop: (why: Stop, detail?: string) => void }): (e: AgentEvent) => void {
  const facts = w.record.facts;
  let timer: { cancel(): void } | null = null;
  return (e) => {
    if (e.type === "unreachable") {
      facts.unreachable = e.message.slice(0, 500);
      if (!timer && w.seat.settings.unreachableMs)
        timer = w.seat.make.timer(w.seat.clock.now() + w.seat.settings.unreachableMs, () => {
          if (facts.unreachable) w.stop("unreachable", facts.unreachable);
        });
    } else if (e.type === "tool" || e.type === "outcome" || (e.type === "usage" && ((e.usage.tokens?.input ?? 0) > 0 || (e.usage.tokens?.output ?? 0) > 0))) {
      facts.unreachable = undefined;
      timer?.cancel();
      timer = null;
    } else if (e.type === "finished") timer?.cancel();
  };
}
