// A run whose agent is gone when the seat starts again — it died with the bridge (a crash, SIGKILL: the
// jail goes with its parent), or the bridge stopped it politely and kept the claim (shutdown.inFlight:
// continue) — is continued by this seat, never blocked for a person (DESIGN: no human for the bridge's
// own cuts). The task is read first: still this run's (running, its open run ours) with time left on the
// claim → a new agent in the same run, resuming its session; ours with too little left → handed back
// to the lane with a reason (a manual reclaim counts as no failure), so a fresh claim — most likely this
// seat's next sweep — continues it; no longer ours (the claim ended and Hermes gave it back, someone
// moved it) → nothing to do: whoever runs it next resumes from the session journal.
import { randomUUID } from "node:crypto";
import type { AgentAdapter } from "../agents/port.js";
import type { Board } from "../board/port.js";
import type { Config } from "../config/schema.js";
import { describeError } from "../errors/index.js";
import type { Logger } from "../log/logger.js";
import type { Closer } from "../outbox/closer.js";
import type { Clock } from "../time/clock.js";
import type { ActiveRun } from "./active-runs.js";
import type { RunLauncher } from "./launcher.js";
import type { SeatLeases } from "./leases.js";

export interface ContinueDeps {
  config: Config;
  agent: AgentAdapter;
  launcher: RunLauncher;
  /** The seat's leases (leases.ts): a claim taken before the restart is taken up there. */
  leases: SeatLeases;
  closer: Closer;
  clock: Clock;
  log: Logger;
}

export type Continued = "same_run" | "handed_back" | "not_ours" | "unknown";

export async function continueInterrupted(d: ContinueDeps, board: Board, r: ActiveRun, why: string): Promise<Continued> {
  const ids = { board: r.board, task_id: r.task, run_id: r.runId, trace_id: r.traceId };
  let detail: Awaited<ReturnType<Board["show"]>>;
  try {
    detail = await board.show(r.task);
  } catch (err) {
    d.log.warn({ ...ids, err: describeError(err) }, "could not read the interrupted run's task: it continues when it is claimed again");
    return "unknown";
  }
  const ours = d.leases.stillOurs(detail, r.runId);
  if (!ours) {
    d.log.info({ ...ids, status: detail.task.status }, "the interrupted run's task is no longer this run's: whoever runs it next resumes from its session");
    return "not_ours";
  }
  const left = r.deadline - d.clock.now();
  if (left >= d.leases.minimumLeftMs(r.ttlSeconds)) {
    d.log.warn({ ...ids, left_s: Math.round(left / 1000), why }, "continuing a run interrupted by a bridge restart, in the same run");
    d.launcher.reserve(r.board, r.task);
    const traceId = randomUUID();
    // The claim's deadline as the journal last had it (renewals moved it).
    const held = d.leases.resume(board, r, { traceId, read: { detail } });
    // One line on the card: this run goes on after the bridge's restart (a crash leaves nothing else there).
    await held.fenced
      .heartbeat(`hermes-kanban-bridge (seat ${d.config.seat.name}): continuing this run after ${why}; the agent resumes its session (no action needed)`)
      .catch((err: unknown) => d.log.warn({ ...ids, err: describeError(err) }, "could not leave the continuation's note"));
    d.launcher.launch({ board, held, agent: d.agent, traceId });
    return "same_run";
  }
  const reason = `hermes-kanban-bridge: seat ${d.config.seat.name} came back after ${why} with too little of its claim left; handed back to the lane '${d.config.assignee}' to continue (the agent's session is kept; no action needed)`;
  try {
    const comment = `hermes-kanban-bridge (seat ${d.config.seat.name}): the bridge came back after ${why}, with too little of this run's claim left to continue in it. The task goes back to the lane '${d.config.assignee}': the next run continues it (this seat resumes the agent's session). No action needed.`;
    const held = d.leases.resume(board, r);
    const res = await d.closer.close(held.fenced, { type: "release", reason, comment }, r.traceId);
    d.log.warn({ ...ids, close: res.result }, "handed back a run interrupted by a bridge restart (too little of its claim left)");
    return "handed_back";
  } catch (err) {
    d.log.error({ ...ids, err: describeError(err) }, "could not hand back the interrupted run: Hermes hands it back when its claim ends");
    return "unknown";
  }
}
