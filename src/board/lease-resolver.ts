// Tells what a refused or uncertain lease-bound call means, by reading the task (lease/lease.ts judges).
import type { BoardError } from "../errors/board.js";
import { LeaseLost } from "../errors/board.js";
import { type Lease, type LeaseState, judge } from "../lease/lease.js";
import type { TaskDetail } from "./port.js";

export class LeaseResolver {
  constructor(private readonly show: (taskId: string) => Promise<TaskDetail>) {}

  async check(lease: Lease, closedOutcome: "completed" | "blocked" | null): Promise<LeaseState> {
    return judge(lease, await this.show(lease.taskId), closedOutcome);
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
