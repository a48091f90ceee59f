// `hermes-bridge fleet [--root DIR] [--url URL]... [--json] [--watch [S]]`: one table for every seat —
// the local state dirs under a root (default: the parent of this config's state dir, where each seat
// has one) and remote seats by their /status URL (config fleet.urls, or --url). Needs no agent settings.
import { dirname } from "node:path";
import { opsConfig, printWarnings } from "./ops-config.js";
import { defaultStateRoot } from "../config/schema.js";
import { httpToken } from "../config/http-token.js";
import { type FleetSeat, collectFleet, runText, spendText, stateText } from "../observe/fleet.js";
import { termSafe } from "../result/text.js";
import { sleepUnlessAborted, systemClock } from "../time/clock.js";

export interface FleetOptions {
  config?: string;
  root?: string;
  urls?: string[];
  json?: boolean;
  /** Seconds between refreshes; unset: print once. */
  watch?: number;
  flags: Record<string, string | undefined>;
}

export function renderFleet(seats: readonly FleetSeat[], now: number): string {
  const head = ["SEAT", "AGENT", "STATE", "RUNS", "TODAY", "LAST 5H", "OUTBOX", "JAIL / NETWORK", "EGRESS REFUSED", "LIMITS", "LAST ERROR"];
  const rows = seats.map((s) => [
    s.seat,
    s.agent ?? "-",
    stateText(s),
    s.runs.length ? s.runs.map(runText).join("; ") : "-",
    spendText(s.today),
    spendText(s.window5h),
    s.outboxBacklog === null ? "-" : String(s.outboxBacklog),
    s.isolation ? `${s.isolation} / ${s.network ?? "host"}` : "-",
    s.egressBlocked.length ? s.egressBlocked.join(", ") : "-",
    s.limits ?? "-",
    s.lastError ?? "",
  ]);
  const widths = head.map((h, i) => Math.min(60, Math.max(h.length, ...rows.map((r) => termSafe(r[i] ?? "", 60).length))));
  const line = (r: string[]) =>
    r
      .map((c, i) => termSafe(c, 60).padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  const working = seats.filter((s) => s.state === "working").length;
  // The service levels a seat's last 24 hours crossed (its own verdicts, as `stats` and the page flag them).
  const levels = seats.flatMap((s) => (s.hours?.verdicts ?? []).map((v) => `! ${termSafe(s.seat, 60)}: ${termSafe(v.text, 200)}`));
  return `${seats.length} seat(s), ${working} working · ${new Date(now).toISOString()}\n${[line(head), ...rows.map(line), ...levels].join("\n")}\n`;
}

export async function fleetCommand(
  o: FleetOptions,
  env: NodeJS.ProcessEnv = process.env,
  print: (s: string) => void = (s) => process.stdout.write(s),
  signal?: AbortSignal,
): Promise<number> {
  // A config (file or flags) names the seat's own state dir and fleet.urls; without one the fleet is the default state location.
  const given = o.config !== undefined || Object.values(o.flags).some((v) => v !== undefined);
  const c = given ? await opsConfig(o, env) : null;
  if (c) printWarnings(c);
  const root = o.root ?? c?.fleet.root ?? (c ? dirname(c.stateDir) : defaultStateRoot());
  const urls = [...(c?.fleet.urls ?? []), ...(o.urls ?? [])];
  const t = c ? httpToken(c, env) : null;
  const token = t && "token" in t ? t.token : undefined;
  do {
    const now = systemClock.now();
    const seats = await collectFleet({ root, urls, now, token, signal });
    if (o.json) print(`${JSON.stringify({ at: new Date(now).toISOString(), root, seats }, null, 2)}\n`);
    else print(`${o.watch ? "\x1b[2J\x1b[H" : ""}${renderFleet(seats, now)}`);
  } while (o.watch && (await sleepUnlessAborted(o.watch * 1000, signal ?? new AbortController().signal)));
  return 0;
}
