// Tells what a refused or uncertain lease-bound call means, by reading the task:
// our run already closed the way we wanted (a retry after a lost answer) → already_applied;
// the open run is no longer ours → LeaseLost; otherwise the original refusal stands.
import type { BoardError } from "./errors.js";
import { LeaseLost } from "./errors.js";
import { openRun } from "./parse.js";
import type { Lease, TaskDetail } from "./port.js";

export type LeaseState = "already_applied" | "owned" | LeaseLost;

export class LeaseResolver {
  constructor(private readonly show: (taskId: string) => Promise<TaskDetail>) {}

  async check(lease: Lease, closedOutcome: "completed" | "blocked" | null): Promise<LeaseState> {
    const detail = await this.show(lease.taskId);
    return judge(lease, detail, closedOutcome);
  }

  /** For a `cannot <verb> <id>` refusal: returns already_applied, or the error to throw. */
  async resolve(lease: Lease, closedOutcome: "completed" | "blocked" | null, refusal: BoardError): Promise<"already_applied" | Error> {
    let state: LeaseState;
    try {
      state = await this.check(lease, closedOutcome);
    } catch (err) {
      return err instanceof Error ? err : refusal;
    }
    if (state === "already_applied") return state;
    if (state instanceof LeaseLost) return state;
    return refusal;
  }
}

export function judge(lease: Lease, detail: TaskDetail, closedOutcome: "completed" | "blocked" | null): LeaseState {
  const mine = lease.runId === null ? undefined : detail.runs.find((r) => r.id === lease.runId);
  if (closedOutcome && mine && mine.outcome === closedOutcome) return "already_applied";
  const open = openRun(detail);
  const status = detail.task.status;
  if (lease.runId !== null && (status !== "running" || open.runId !== lease.runId)) {
    return new LeaseLost(
      { verb: "show", board: lease.board, taskId: lease.taskId, stderrTail: mine?.error ?? undefined },
      { runId: lease.runId, currentStatus: status, currentRunId: open.runId },
    );
  }
  return "owned";
}
