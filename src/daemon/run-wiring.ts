// What a run and its lease tell, and what the seat makes of it: each run event and lease event becomes
// a seat event (events.ts) and, where an operator looks, a log line, a metric or an active-run journal
// entry (the journal entry is what a restart needs to find the agent again). The launcher wires every
// run it starts through here, before the run starts.
import type { HeldLease } from "../lease/held.js";
import { processStartTime } from "../process/liveness.js";
import type { TaskRun } from "../run/task-run.js";
import type { RunIds, SeatTell } from "./events.js";
import type { Logger } from "../log/logger.js";
import type { Metrics } from "../observe/metrics.js";
import type { ActiveRuns } from "./active-runs.js";

/** What the wiring writes to: the active-run journal, the log, the metrics. */
export interface WiringServices {
  active: ActiveRuns;
  log: Logger;
  metrics?: Metrics | undefined;
}

export interface Wired {
  board: string;
  taskId: string;
  traceId: string;
  agent: string;
  /** An agent adopted after a restart: its journal entry is kept as it is. */
  adopted: boolean;
}

export function wireRun(s: WiringServices, seat: SeatTell, run: TaskRun, held: HeldLease, w: Wired): void {
  const { board, taskId, traceId } = w;
  const fenced = held.fenced;
  const ids = (): RunIds => ({ board, taskId, runId: fenced.lease.runId, traceId });
  const logIds = () => ({ board, task_id: taskId, run_id: fenced.lease.runId, trace_id: traceId });
  held.on("heartbeat", () => seat.tell("heartbeat", ids()));
  held.on("heartbeat_failed", () => s.metrics?.heartbeatFailures.inc({ board }));
  held.on("renewed", ({ deadline }) => {
    s.active.moveDeadline(board, taskId, deadline);
    s.log.debug({ ...logIds(), deadline: new Date(deadline).toISOString() }, "claim renewed: deadline moved");
    seat.tell("run:renewed", { ...ids(), deadline });
  });
  const e = run.events;
  e.on("phase", (phase) => {
    s.log.debug({ ...logIds(), phase }, "phase");
    seat.tell("run:phase", { ...ids(), phase });
  });
  e.on("egress_refused", (host, port, why, r) => {
    s.metrics?.egressRefused(host);
    // The way through only for a public name (egress/allow.ts allowAdvice): never an address, a local or a metadata name.
    const fix = r.advice ? `"${r.advice}" in agent.isolation.allowHosts, then restart the seat` : undefined;
    if (r.housekeeping) s.log.info({ ...logIds(), host, port, why }, "egress refused: the agent CLI's own housekeeping (not needed)");
    else s.log.warn({ ...logIds(), host, port, why, ...(fix ? { fix } : {}) }, "egress refused (the first time this run asked for it)");
    seat.tell("run:egress-refused", { ...ids(), host, port, why, advice: r.advice, housekeeping: r.housekeeping });
  });
  e.on("egress_failed", (host, port, why) => s.log.warn({ ...logIds(), host, port, why }, "an allowed host could not be reached"));
  e.on("log", (level, msg, data) => s.log[level]({ ...logIds(), ...(data ?? {}) }, msg));
  e.on("progress", (note) => seat.tell("run:progress", { ...ids(), note }));
  e.on("retry", (r) => {
    s.metrics?.retries.inc({ board, cause: r.cause });
    seat.tell("run:retry", { ...ids(), attempt: r.attempt, cause: r.cause, detail: r.detail });
  });
  e.on("notes_offered", (count) => seat.tell("run:notes-offered", { ...ids(), count }));
  e.on("notes", (notes, at) => {
    for (const n of notes) {
      s.metrics?.notesDelivered.inc({ board, agent: w.agent });
      s.metrics?.noteLatency.observe({ board, agent: w.agent }, Math.max(0, at - n.postedAt) / 1000);
    }
    s.log.info({ ...logIds(), notes: notes.map((n) => n.id), latency_ms: notes.map((n) => at - n.postedAt) }, "operator notes handed to the agent");
    seat.tell("run:notes", { ...ids(), notes, at });
  });
  e.on("started", ({ pid: own, resultFile, runDir, outputDir, workspace, tools }) => {
    const lease = fenced.lease;
    // An agent inside the bridge (the local loop) is journaled as the bridge's own process: it dies with it.
    const pid = own ?? process.pid;
    if (!w.adopted)
      s.active.write({
        board,
        task: taskId,
        runId: lease.runId,
        ...(lease.claimLock !== undefined ? { claimLock: lease.claimLock } : {}),
        traceId,
        pid,
        pidStart: processStartTime(pid),
        pgid: pid,
        workspace: lease.workspace,
        localWorkspace: workspace,
        deadline: held.deadline,
        claimedAt: lease.claimedAt,
        ttlSeconds: lease.ttlSeconds,
        resultFile,
        runDir,
        outputDir,
        agent: w.agent,
        tools,
        ...(own === null ? { inProcess: true } : {}),
      });
    // Logged after the journal write: from here on a crash of the bridge is recoverable.
    s.log.info({ ...logIds(), agent_pid: pid, adopted: w.adopted }, "agent started");
    seat.tell("run:started", { ...ids(), pid, adopted: w.adopted });
  });
}
