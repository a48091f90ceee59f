// The fleet: one row per seat — local seats by their state dirs under a root (the default state
// location holds one dir per seat; each daemon writes <dir>/status.json every 5 s) and remote seats by
// their `/status` URL. Read by `hermes-bridge fleet` and the HTTP server's `/` page. A seat that cannot
// be read is a row that says why, never a missing row.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { processStartTime } from "../process/liveness.js";
import type { Spend } from "../state/ledger.js";
import { readSmallFile } from "../state/read.js";
import type { StatusSnapshot } from "./status.js";

export interface FleetRun {
  task: string;
  phase: string;
  ageSeconds: number;
  lastHeartbeat: string | null;
  deadline: string | null;
}

export interface FleetSeat {
  /** The state dir or the URL the row was read from. */
  source: string;
  seat: string;
  assignee: string | null;
  agent: string | null;
  /** working · idle · paused · auth · budget · stopping · not running · unreachable · unreadable */
  state: string;
  pausedUntil: string | null;
  reason: string | null;
  runs: FleetRun[];
  today: Spend | null;
  window5h: Spend | null;
  outboxBacklog: number | null;
  lastError: string | null;
  at: string | null;
}

/** A status file older than this is a daemon that stopped writing (gone, or hung). */
const STALE_MS = 60_000;

function row(source: string, s: Partial<StatusSnapshot>, live: boolean): FleetSeat {
  const seat = s.seat;
  return {
    source,
    seat: seat?.name ?? seat?.assignee ?? source,
    assignee: seat?.assignee ?? null,
    agent: seat?.agent ?? null,
    state: live ? (seat?.state ?? (seat?.paused ? "paused" : (s.runs?.length ?? 0) > 0 ? "working" : "idle")) : "not running",
    pausedUntil: seat?.pausedUntil ?? null,
    reason: seat?.reason ?? seat?.budget ?? null,
    runs: (s.runs ?? []).map((r) => ({
      task: `${r.board}/${r.task}`,
      phase: r.phase,
      ageSeconds: r.ageSeconds,
      lastHeartbeat: r.lastHeartbeat,
      deadline: r.deadline,
    })),
    today: s.usage?.today ?? null,
    window5h: s.usage?.window5h ?? null,
    outboxBacklog: s.outbox?.backlog ?? null,
    lastError: s.lastErrors?.at(-1)?.what ?? null,
    at: s.at ?? null,
  };
}

const broken = (source: string, state: string, why: string): FleetSeat => ({
  source,
  seat: source,
  assignee: null,
  agent: null,
  state,
  pausedUntil: null,
  reason: null,
  runs: [],
  today: null,
  window5h: null,
  outboxBacklog: null,
  lastError: why,
  at: null,
});

/** The seats whose state dirs are under `root` (a dir with a status.json), by name. */
export async function localSeats(root: string, now: number): Promise<FleetSeat[]> {
  let names: string[];
  try {
    names = (await readdir(root, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    return [];
  }
  const rows = await Promise.all(
    names.sort().map(async (name) => {
      const dir = join(root, name);
      const r = await readSmallFile(join(dir, "status.json"), 4 * 1024 * 1024);
      if ("error" in r) return broken(dir, "unreadable", r.error);
      if (r.text === null) return null;
      try {
        const s = JSON.parse(r.text) as Partial<StatusSnapshot>;
        const fresh = s.at !== undefined && now - Date.parse(s.at) < STALE_MS;
        const alive = typeof s.pid === "number" && processStartTime(s.pid) !== null;
        return row(dir, s, fresh && alive && s.stopping !== true);
      } catch {
        return broken(dir, "unreadable", `${join(dir, "status.json")} is not JSON`);
      }
    }),
  );
  return rows.filter((r): r is FleetSeat => r !== null);
}

/** A remote seat by its status URL (`http://host:port` or `…/status`). */
export async function remoteSeat(url: string, timeoutMs = 3000): Promise<FleetSeat> {
  const u = new URL(url);
  if (u.pathname === "/" || u.pathname === "") u.pathname = "/status";
  try {
    const { request } = await import("undici");
    const res = await request(u, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    if (res.statusCode !== 200) {
      await res.body.dump();
      return broken(url, "unreachable", `${u.href} answered HTTP ${res.statusCode}`);
    }
    return row(url, (await res.body.json()) as Partial<StatusSnapshot>, true);
  } catch (err) {
    return broken(url, "unreachable", `${u.href}: ${(err as Error).message}`);
  }
}

export async function collectFleet(o: { root: string | undefined; urls: readonly string[]; now: number }): Promise<FleetSeat[]> {
  const [local, remote] = await Promise.all([o.root ? localSeats(o.root, o.now) : [], Promise.all(o.urls.map((u) => remoteSeat(u)))]);
  return [...local, ...remote];
}

/** `12345 tok · $0.4200` (+ how many runs reported nothing); `-` when unknown. */
export function spendText(s: Spend | null): string {
  if (!s) return "-";
  const tok = s.tokens >= 1_000_000 ? `${(s.tokens / 1_000_000).toFixed(1)}M` : s.tokens >= 10_000 ? `${(s.tokens / 1000).toFixed(1)}k` : String(s.tokens);
  return `${tok} tok · $${s.costUsd.toFixed(4)}${s.unmeasured ? ` (+${s.unmeasured} unmeasured)` : ""}`;
}

/** A seat's runs in one cell: `b/t_1 working 120s (hb 12:00:01Z, due 12:14:00Z)`. */
export function runText(r: FleetRun): string {
  const t = (iso: string | null) => (iso ? iso.slice(11, 19) : "-");
  return `${r.task} ${r.phase} ${r.ageSeconds}s (hb ${t(r.lastHeartbeat)}, due ${t(r.deadline)})`;
}

export function stateText(s: FleetSeat): string {
  if (s.state === "paused" && s.pausedUntil) return `paused until ${s.pausedUntil}`;
  return s.state;
}
