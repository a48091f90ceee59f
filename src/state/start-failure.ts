// Why a seat's last `run` did not start (a start check that failed, a config the build refused): written
// by `run` before it exits, removed by the next start that gets through, read by the fleet — a seat that
// never wrote a status, or whose status is older than the failure, is a row that says why it is down.
import { rmSync } from "node:fs";
import { z } from "zod";
import { writeStateFile } from "./atomic.js";
import { statePath } from "./layout.js";

const StartFailureSchema = z.object({ at: z.string().max(40), reason: z.string().max(4000) });
export type StartFailure = z.output<typeof StartFailureSchema>;

export function recordStartFailure(stateDir: string, reason: string, now: number): void {
  writeStateFile(statePath(stateDir, "startFailure"), `${JSON.stringify({ at: new Date(now).toISOString(), reason: reason.slice(0, 4000) })}\n`);
}

export function clearStartFailure(stateDir: string): void {
  rmSync(statePath(stateDir, "startFailure"), { force: true });
}

/** The record's text parsed (null: none, or not one). */
export function parseStartFailure(text: string): StartFailure | null {
  try {
    const r = StartFailureSchema.safeParse(JSON.parse(text));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}
