// The agent's pre-flight at the seat's start (agents/kinds.ts preflight: the installed CLI's version against the
// tested range, then the kind's own check): the version said in the log, a failure pausing the seat until fixed.
import type { PreflightResult } from "../agents/kinds.js";
import { logVersion } from "../agents/tested.js";
import type { Logger } from "../log/logger.js";
import type { DaemonHealth } from "./health.js";
import type { SeatState } from "./seat.js";

export async function preflightAtStart(check: () => Promise<PreflightResult>, seat: SeatState, health: DaemonHealth, log: Logger): Promise<void> {
  const p = await check();
  if (p.version) logVersion(log, p.version);
  if (p.ok) {
    seat.clearAuth();
    return;
  }
  seat.pauseForAuth(p.detail, p.fix);
  health.noteError(`agent pre-flight failed: ${p.detail}`);
  log.error({ detail: p.detail, fix: p.fix }, "agent pre-flight failed: the seat claims nothing until it is fixed (see `hermes-bridge doctor`)");
}
