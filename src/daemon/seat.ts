// Seat state: a usage limit pauses claiming until its reset (+ margin); an auth failure until an
// operator fixes it (a later start whose pre-flight passes clears it). Persisted in the state dir, so
// a restart does not claim (and block) another task into the same limit.
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { readSmallFile } from "../state/read.js";
import { quarantine } from "../state/quarantine.js";
import type { Clock } from "../time/clock.js";

const SeatFile = z.object({ until: z.number().nullable(), auth: z.boolean(), reason: z.string().nullable() });

export class SeatState {
  private until: number | null = null;
  private authPaused = false;
  reason: string | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly marginMs = 60_000,
    private readonly file: string | null = null,
  ) {}

  static fileIn(stateDir: string): string {
    return join(stateDir, "seat.json");
  }

  /** Reads a persisted pause (a bad file is quarantined and ignored). */
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
    if (!parsed.success) return quarantine(this.file, "not a seat state");
    this.until = parsed.data.until;
    this.authPaused = parsed.data.auth;
    this.reason = parsed.data.reason;
  }

  pauseUntil(resetsAt: number | null, reason: string): void {
    const until = (resetsAt ?? this.clock.now() + 15 * 60_000) + this.marginMs;
    this.until = Math.max(this.until ?? 0, until);
    this.reason = reason;
    this.save();
  }

  pauseForAuth(detail?: string): void {
    this.authPaused = true;
    this.reason = `agent authentication failed${detail ? ` (${detail})` : ""}: run \`hermes-bridge doctor\``;
    this.save();
  }

  /** The pre-flight passed: a persisted auth pause is over. */
  clearAuth(): void {
    if (!this.authPaused) return;
    this.authPaused = false;
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

  private save(): void {
    if (!this.file) return;
    writeFileSync(`${this.file}.tmp`, JSON.stringify({ until: this.until, auth: this.authPaused, reason: this.reason }), { mode: 0o600 });
    renameSync(`${this.file}.tmp`, this.file);
  }
}
