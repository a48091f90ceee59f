// How the seat's agents are confined, said where an operator looks: on /metrics always, and — when they
// run without a jail of their own (agent.isolation fell back, or is user or none) — one alert per start.
import type { Jail } from "../jail/jail.js";
import type { Metrics } from "../observe/metrics.js";
import type { AlertPayload } from "../outbox/webhook.js";
import type { Clock } from "../time/clock.js";

export function announceIsolation(d: {
  jail?: Jail | undefined;
  metrics?: Metrics | undefined;
  alerts: { enqueue(p: AlertPayload): void };
  boards: readonly { slug: string }[];
  config: { seat: { name: string } };
  clock: Clock;
}): void {
  const p = d.jail?.policy;
  if (!p) return;
  d.metrics?.isolation.set({ mode: p.mode }, 1);
  if (p.mode === "bwrap") return;
  d.alerts.enqueue({
    event: "isolation_off",
    board: d.boards[0]?.slug ?? "",
    task_id: "",
    run_id: null,
    trace_id: "",
    intended_close: null,
    error: `seat ${d.config.seat.name}: agents run with agent.isolation ${p.mode}: ${p.why}`,
    at: new Date(d.clock.now()).toISOString(),
  });
}
