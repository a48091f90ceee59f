// Prometheus metrics (prom-client, own registry): what an operator needs to see a seat's health.
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Usage } from "../agents/port.js";

export class Metrics {
  readonly registry = new Registry();
  readonly claims = new Counter({ name: "hkb_claims_total", help: "Tasks claimed", labelNames: ["board"], registers: [this.registry] });
  readonly completes = new Counter({ name: "hkb_completes_total", help: "Tasks completed", labelNames: ["board"], registers: [this.registry] });
  readonly reopens = new Counter({
    name: "hkb_reopen_completes_total",
    help: "Reopened tasks completed again (a reopen, not counted in hkb_completes_total)",
    labelNames: ["board"],
    registers: [this.registry],
  });
  readonly blocks = new Counter({ name: "hkb_blocks_total", help: "Tasks blocked, by cause", labelNames: ["board", "cause"], registers: [this.registry] });
  readonly limitHandoffs = new Counter({
    name: "hkb_limit_handoffs_total",
    help: "Runs cut by the seat's usage limit and continued without an operator (mode: handoff to the lane, or wait for this seat)",
    labelNames: ["board", "mode"],
    registers: [this.registry],
  });
  readonly leaseLosses = new Counter({ name: "hkb_lease_losses_total", help: "Runs that lost their lease", labelNames: ["board"], registers: [this.registry] });
  readonly heartbeatFailures = new Counter({
    name: "hkb_heartbeat_failures_total",
    help: "Heartbeats that failed (before re-check)",
    labelNames: ["board"],
    registers: [this.registry],
  });
  readonly closeFailures = new Counter({
    name: "hkb_close_failures_total",
    help: "Closes that did not land (failed or dead letter)",
    labelNames: ["board", "result"],
    registers: [this.registry],
  });
  readonly outboxBacklog = new Gauge({ name: "hkb_outbox_backlog", help: "Open outbox entries", registers: [this.registry] });
  readonly seatPaused = new Gauge({ name: "hkb_seat_paused", help: "1 while the seat does not claim (usage limit, auth)", registers: [this.registry] });
  readonly egressBlocked = new Counter({
    name: "hkb_egress_blocked_total",
    help: "Connections a jailed agent asked for that the run's proxy refused (network: proxy), by host",
    labelNames: ["host"],
    registers: [this.registry],
  });
  readonly isolation = new Gauge({
    name: "hkb_agent_isolation",
    help: "1 for how this seat's agents are confined (mode: bwrap, user — an unprivileged uid without a jail, none)",
    labelNames: ["mode"],
    registers: [this.registry],
  });
  private readonly egressHosts = new Set<string>();
  /** A refused host counted under its name — the first 100 names; any later one as "other" (bounded series). */
  egressRefused(host: string): void {
    const h = host.slice(0, 100);
    if (this.egressHosts.size < 100) this.egressHosts.add(h);
    this.egressBlocked.inc({ host: this.egressHosts.has(h) ? h : "other" });
  }
  readonly network = new Gauge({
    name: "hkb_agent_network",
    help: "1 for what this seat's agents can reach (mode: proxy — the listed hosts only, none, host — whatever the host reaches)",
    labelNames: ["mode"],
    registers: [this.registry],
  });
  readonly inFlight = new Gauge({ name: "hkb_runs_in_flight", help: "Runs in flight", registers: [this.registry] });
  readonly seatAuthFailed = new Gauge({
    name: "hkb_seat_auth_failed",
    help: "1 while the seat is paused because the agent could not log in",
    registers: [this.registry],
  });
  readonly alertsQueued = new Gauge({ name: "hkb_alerts_queued", help: "Alerts waiting for the webhook", registers: [this.registry] });
  readonly alertsDead = new Counter({
    name: "hkb_alerts_dead_total",
    help: "Alerts the webhook never took (kept as dead letters)",
    registers: [this.registry],
  });
  readonly heartbeatAge = new Gauge({
    name: "hkb_heartbeat_age_seconds",
    help: "Seconds since the oldest run in flight last heartbeated (or started); 0 with nothing in flight",
    registers: [this.registry],
  });
  readonly heartbeatInterval = new Gauge({ name: "hkb_heartbeat_interval_seconds", help: "The configured heartbeat interval", registers: [this.registry] });
  readonly stalls = new Counter({
    name: "hkb_stalled_runs_total",
    help: "Runs stopped because the agent went silent (agent.stallSeconds)",
    labelNames: ["board"],
    registers: [this.registry],
  });
  readonly pickupLatency = new Histogram({
    name: "hkb_pickup_latency_seconds",
    help: "Ready → claimed",
    labelNames: ["board"],
    buckets: [0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900],
    registers: [this.registry],
  });
  readonly notesDelivered = new Counter({
    name: "hkb_notes_delivered_total",
    help: "Operator notes (comments on a running task) handed to the agent",
    labelNames: ["board", "agent"],
    registers: [this.registry],
  });
  readonly noteLatency = new Histogram({
    name: "hkb_note_delivery_seconds",
    help: "A note's post time on the board → handed to the running agent",
    labelNames: ["board", "agent"],
    buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900],
    registers: [this.registry],
  });
  readonly runDuration = new Histogram({
    name: "hkb_run_duration_seconds",
    help: "Claim → close",
    labelNames: ["board", "decision"],
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 900, 1800, 3600],
    registers: [this.registry],
  });
  readonly cliCalls = new Counter({
    name: "hkb_cli_calls_total",
    help: "hermes kanban calls, by how they reached the CLI (server: the call server; process: one process each)",
    labelNames: ["verb", "exit_code", "transport"],
    registers: [this.registry],
  });
  readonly cliTransport = new Gauge({
    name: "hkb_cli_transport",
    help: "How each board's calls reach the CLI now: 1 for the mode in use (server or process)",
    labelNames: ["board", "transport"],
    registers: [this.registry],
  });
  readonly cliDuration = new Histogram({
    name: "hkb_cli_call_duration_seconds",
    help: "hermes kanban call duration",
    labelNames: ["verb"],
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 120],
    registers: [this.registry],
  });

  readonly resumes = new Counter({
    name: "hkb_resumed_runs_total",
    help: "Runs that continued a cut run's agent session",
    labelNames: ["board"],
    registers: [this.registry],
  });
  readonly tokens = new Counter({
    name: "hkb_agent_tokens_total",
    help: "Agent tokens reported by runs, by kind (input, output, cache_read, cache_write)",
    labelNames: ["seat", "agent", "kind"],
    registers: [this.registry],
  });
  readonly costUsd = new Counter({
    name: "hkb_agent_cost_usd_total",
    help: "Agent cost in USD reported by runs",
    labelNames: ["seat", "agent"],
    registers: [this.registry],
  });

  usage(seat: string, agent: string, u: Usage | null): void {
    if (!u) return;
    const t = u.tokens;
    if (t) {
      for (const [kind, n] of [
        ["input", t.input],
        ["output", t.output],
        ["cache_read", t.cacheRead],
        ["cache_write", t.cacheWrite],
      ] as const)
        if (n !== undefined && n > 0) this.tokens.inc({ seat, agent, kind }, n);
    }
    if (u.costUsd !== undefined && u.costUsd > 0) this.costUsd.inc({ seat, agent }, u.costUsd);
  }

  cliCall(verb: string, exitCode: number | null, durationMs: number, transport: string): void {
    this.cliCalls.inc({ verb, exit_code: exitCode === null ? "none" : String(exitCode), transport });
    this.cliDuration.observe({ verb }, durationMs / 1000);
  }

  transport(board: string, mode: "server" | "process"): void {
    this.cliTransport.set({ board, transport: mode }, 1);
    this.cliTransport.set({ board, transport: mode === "server" ? "process" : "server" }, 0);
  }
}
