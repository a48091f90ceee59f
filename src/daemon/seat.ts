// Seat state: a usage limit pauses claiming until its reset (+ margin); an auth failure until an
// operator fixes it (a later start whose pre-flight passes clears it). Persisted in the state dir, so
// a restart does not claim (and block) another task into the same limit. The reset time is agent input:
// bounded (result/limits.ts) when it is set and again when the file is read back, so neither a hostile
// outcome nor an edited seat.json can pause the seat past seat.maxLimitPauseHours or break `status`.
import { z } from "zod";
import { DEFAULT_MAX_PAUSE_MS, UNKNOWN_RESET_WAIT_MS, boundReset } from "../result/limits.js";
import { writeStateFile } from "../state/atomic.js";
import { statePath } from "../state/layout.js";
import { quarantine } from "../state/quarantine.js";
import { readSmallFile } from "../state/read.js";
import { type Clock, isInstant } from "../time/clock.js";

const SeatFile = z.object({
  until: z.number().finite().min(0).max(8.64e15).nullable(),
  auth: z.boolean(),
  reason: z.string().max(4000).nullable(),
  fix: z.string().max(4000).nullable().optional(),
});

export interface SeatOptions {
  marginMs?: number;
  /** The longest a pause may last (seat.maxLimitPauseHours). */
  maxPauseMs?: number;
  file?: string | null;
  /** A failed write of the seat file (the pause still holds in memory). */
  onSaveError?: (err: Error) => void;
}

export class SeatState {
  private until: number | null = null;
  private authPaused = false;
  reason: string | null = null;
  /** What an operator runs to end an auth pause (the kind's login, as the pre-flight says it), when known. */
  fix: string | null = null;
  private readonly marginMs: number;
  private readonly maxPauseMs: number;
  private readonly file: string | null;

  constructor(
    private readonly clock: Clock,
    private readonly o: SeatOptions = {},
  ) {
    this.marginMs = o.marginMs ?? 60_000;
    this.maxPauseMs = o.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS;
    this.file = o.file ?? null;
  }

  static fileIn(stateDir: string): string {
    return statePath(stateDir, "seat");
  }

  /** Reads a persisted pause (a bad file is quarantined and ignored; a pause past the cap is cut to it). */
  async load(): Promise<void> {
    if (!this.file) return;
    const r = await readSmallFile(this.file, 64 * 1024);
    if ("error" in r) return quarantine(this.file, r.error);
    if (r.text === null) return;
    let parsed: ReturnType<typeof SeatFile.safeParse>;
    try {
      parsed = SeatFile.safeParse(JSON.parse(r.text));
    } catch {
      return quarantine(this.file, "not JSON");
    }
    if (!parsed.success)
      return quarantine(this.file, `not a seat state (${parsed.error.issues[0]?.path.join(".") ?? "?"}: ${parsed.error.issues[0]?.message ?? "?"})`);
    const latest = this.clock.now() + this.maxPauseMs + this.marginMs;
    this.until = parsed.data.until === null ? null : Math.min(parsed.data.until, latest);
    this.authPaused = parsed.data.auth;
    this.reason = parsed.data.reason;
    this.fix = parsed.data.fix ?? null;
  }

  /** Pauses until a reset that was bounded where it was reported (run/work/claims.ts, the seat's checks), plus the
   *  margin, never past the cap. One that passed since — during the close — pauses the margin from now: a
   *  reset that was still ahead when the agent named it is no reason for another 15 minutes. */
  pauseUntil(resetsAt: number | null, reason: string): void {
    const now = this.clock.now();
    const passed = isInstant(resetsAt) && resetsAt <= now;
    const bounded = passed ? { resetsAt, note: null } : boundReset(resetsAt, now, this.maxPauseMs);
    // Never less than the margin from now: a reset that passed is no reason to claim again at once.
    const until = Math.max(now, bounded.resetsAt ?? now + UNKNOWN_RESET_WAIT_MS) + this.marginMs;
    this.until = Math.max(this.until ?? 0, until);
    this.reason = bounded.note ? `${reason}; ${bounded.note}` : reason;
    this.save();
  }

  pauseForAuth(detail?: string, fix?: string): void {
    this.authPaused = true;
    this.reason = `agent authentication failed${detail ? ` (${detail})` : ""}: run \`hermes-bridge doctor\``;
    this.fix = fix || null;
    this.save();
  }

  /** The pre-flight passed: a persisted auth pause is over. */
  clearAuth(): void {
    if (!this.authPaused) return;
    this.authPaused = false;
    this.fix = null;
    if (this.until === null) this.reason = null;
    this.save();
  }

  /** Paused until an operator fixes the agent's login. */
  authFailed(): boolean {
    return this.authPaused;
  }

  paused(): boolean {
    if (this.authPaused) return true;
    if (this.until !== null && this.clock.now() < this.until) return true;
    if (this.until !== null) {
      this.until = null;
      this.reason = null;
      this.save();
    }
    return false;
  }

  pausedUntil(): number | null {
    return this.authPaused ? Number.POSITIVE_INFINITY : this.until;
  }

  /** Never throws: the pause holds in memory; a failed write is reported. */
  private save(): void {
    if (!this.file) return;
    try {
      writeStateFile(this.file, JSON.stringify({ until: this.until, auth: this.authPaused, reason: this.reason, fix: this.fix }));
    } catch (err) {
      this.o.onSaveError?.(err as Error);
    }
  }
}
