// Seat state: a usage limit pauses claiming until its reset (+ margin); an auth failure until an
// operator fixes it and restarts the seat.
import type { Clock } from "../time/clock.js";

export class SeatState {
  private until: number | null = null;
  private authPaused = false;
  reason: string | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly marginMs = 60_000,
  ) {}

  pauseUntil(resetsAt: number | null, reason: string): void {
    const until = (resetsAt ?? this.clock.now() + 15 * 60_000) + this.marginMs;
    this.until = Math.max(this.until ?? 0, until);
    this.reason = reason;
  }

  pauseForAuth(detail?: string): void {
    this.authPaused = true;
    this.reason = `agent authentication failed${detail ? ` (${detail})` : ""}: run \`hermes-bridge doctor\``;
  }

  paused(): boolean {
    if (this.authPaused) return true;
    if (this.until !== null && this.clock.now() < this.until) return true;
    this.until = null;
    return false;
  }

  pausedUntil(): number | null {
    return this.authPaused ? Number.POSITIVE_INFINITY : this.until;
  }
}
