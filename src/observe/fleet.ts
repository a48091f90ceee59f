// The fleet: one row per seat — local seats by their state dirs under a root (the default state
// location holds one dir per seat; each daemon writes <dir>/status.json every 5 s) and remote seats by
// their `/status` URL. Read by `hermes-bridge fleet` and the HTTP server's `/` page. A seat that cannot
// be read is a row that says why, never a missing row; every snapshot goes through one schema
// (snapshot.ts), and a remote one is fetched with a total deadline and a size cap.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { processStartTime } from "../process/liveness.js";
import type { Hours, Spend } from "../state/ledger.js";
import { readSmallFile } from "../state/read.js";
import { isoOrNull } from "../time/clock.js";
import { type FleetSnapshot, parseSnapshot } from "./snapshot.js";
import { statePath } from "../state/layout.js";
import { parseStartFailure } from "../state/start-failure.js";

export interface FleetRun {
  task: string;
  phase: string;
  ageSeconds: number;
  lastHeartbeat: string | null;
  deadline: string | null;
  /** The run's last progress note (redacted by its seat), when it gave one. */
  lastNote: string | null;
  /** The task's title, once the run read the task. */
  title?: string | null;
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
  /** What an operator runs to end the seat's auth pause (the agent's login), when the seat says. */
  fix: string | null;
  /** How the seat's agent is confined (bwrap | none), when the seat says. */
  isolation: string | null;
  /** How the seat's runs are capped (systemd · cgroup · rlimit · none, the last two with why), when the seat says. */
  limits: string | null;
  /** The agents' network (proxy · host · none) and the hosts refused since the seat started (host:port ×count). */
  network: string | null;
  egressBlocked: string[];
  runs: FleetRun[];
  today: Spend | null;
  window5h: Spend | null;
  /** Runs closed per hour over the last 24 hours, when the seat says. */
  hours: Hours | null;
  outboxBacklog: number | null;
  lastError: string | null;
  at: string | null;
}

/** A status file older than this is a daemon that stopped writing (gone, or hung). */
const STALE_MS = 60_000;
/** A snapshot larger than this is not one (a remote seat's, or a local file). */
export const SNAPSHOT_MAX_BYTES = 1024 * 1024;

function row(source: string, s: FleetSnapshot, live: boolean): FleetSeat {
  const seat = s.seat;
  return {
    source,
    seat: seat?.name ?? seat?.assignee ?? source,
    assignee: seat?.assignee ?? null,
    agent: seat?.agent ?? null,
    state: live ? (seat?.state ?? (seat?.paused ? "paused" : (s.runs?.length ?? 0) > 0 ? "working" : "idle")) : "not running",
    pausedUntil: seat?.pausedUntil ?? null,
    reason: seat?.reason ?? seat?.budget ?? null,
    fix: seat?.fix ?? null,
    isolation: seat?.isolation ? `${seat.isolation.mode}${seat.isolation.mode !== "bwrap" ? ` (${seat.isolation.why})` : ""}` : null,
    limits: seat?.limits ? `${seat.limits.mode}${seat.limits.mode === "rlimit" || seat.limits.mode === "none" ? ` (${seat.limits.why})` : ""}` : null,
    network: seat?.network?.mode ?? null,
    // The CLI's housekeeping calls are no operator's question: counted, after the others.
    egressBlocked: [...(seat?.network?.blocked ?? [])]
      .sort((a, b) => Number(a.housekeeping ?? false) - Number(b.housekeeping ?? false))
      .slice(0, 5)
      .map((b) => `${b.host}:${b.port} ×${b.count}${b.housekeeping ? " (housekeeping)" : ""}`),
    runs: (s.runs ?? []).map((r) => ({
      task: `${r.board}/${r.task}`,
      phase: r.phase,
      ageSeconds: r.ageSeconds,
      lastHeartbeat: r.lastHeartbeat,
      deadline: r.deadline,
      lastNote: r.lastNote ?? null,
      title: r.title ?? null,
    })),
    today: s.usage?.today ?? null,
    window5h: s.usage?.window5h ?? null,
    hours: s.usage?.last24h ?? null,
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
  fix: null,
  isolation: null,
  limits: null,
  network: null,
  egressBlocked: [],
  runs: [],
  today: null,
  window5h: null,
  hours: null,
  outboxBacklog: null,
  lastError: why,
  at: null,
});

/** A seat's row from its snapshot text: the seat as it says (`live` decides working/idle vs not running), or `unreadable` and why. */
export function seatFromText(source: string, text: string, live: (s: FleetSnapshot) => boolean): FleetSeat {
  const p = parseSnapshot(text);
  return "error" in p ? broken(source, "unreadable", `${source}: ${p.error}`) : row(source, p.snapshot, live(p.snapshot));
}

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
      const file = statePath(dir, "status");
      const r = await readSmallFile(file, SNAPSHOT_MAX_BYTES);
      if ("error" in r) return broken(dir, "unreadable", r.error);
      // A start that failed after the last status (or before any): the row says why the seat is down.
      const f = await readSmallFile(statePath(dir, "startFailure"), 16 * 1024);
      const failed = "text" in f && f.text !== null ? parseStartFailure(f.text) : null;
      const statusAt = r.text === null ? null : (parseSnapshot(r.text) as { snapshot?: FleetSnapshot }).snapshot?.at;
      if (failed && (statusAt === undefined || statusAt === null || Date.parse(statusAt) <= Date.parse(failed.at)))
        return { ...broken(dir, "start failed", failed.reason), reason: failed.reason, at: failed.at };
      if (r.text === null) return null;
      return seatFromText(dir, r.text, (s) => {
        const at = s.at === undefined ? Number.NaN : Date.parse(s.at);
        const fresh = Number.isFinite(at) && now - at < STALE_MS;
        const alive = s.pid !== undefined && processStartTime(s.pid) !== null;
        return fresh && alive && s.stopping !== true;
      });
    }),
  );
  return rows.filter((r): r is FleetSeat => r !== null);
}

export interface RemoteOptions {
  /** The whole fetch (connect, headers, body) ends by then. */
  timeoutMs?: number;
  /** Sent as `Authorization: Bearer …` (the fleet's seats share http.token). */
  token?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** A remote seat by its status URL (`http://host:port` or `…/status`): at most 1 MiB, within the deadline. */
export async function remoteSeat(url: string, o: RemoteOptions = {}): Promise<FleetSeat> {
  const u = new URL(url);
  if (u.pathname === "/" || u.pathname === "") u.pathname = "/status";
  const timeoutMs = o.timeoutMs ?? 3000;
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(o.signal ? [o.signal] : [])]);
  try {
    const { request } = await import("undici");
    const res = await request(u, {
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      headers: o.token ? { authorization: `Bearer ${o.token}` } : {},
    });
    if (res.statusCode !== 200) {
      res.body.destroy();
      return broken(url, "unreachable", `${u.href} answered HTTP ${res.statusCode}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > SNAPSHOT_MAX_BYTES) {
        res.body.destroy();
        return broken(url, "unreadable", `${u.href}: the snapshot is larger than ${SNAPSHOT_MAX_BYTES} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    return seatFromText(url, Buffer.concat(chunks).toString("utf8"), () => true);
  } catch (err) {
    // The deadline is the abort signal's or undici's own header/body timeout (the same length: whichever fires first).
    const code = (err as { code?: unknown }).code;
    const late = (signal.aborted && !o.signal?.aborted) || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT";
    const why = late ? `no answer within ${timeoutMs} ms` : (err as Error).message;
    return broken(url, "unreachable", `${u.href}: ${why}`);
  }
}

export interface FleetQuery {
  root: string | undefined;
  urls: readonly string[];
  now: number;
  token?: string | undefined;
  signal?: AbortSignal | undefined;
}

export async function collectFleet(o: FleetQuery): Promise<FleetSeat[]> {
  const [local, remote] = await Promise.all([
    o.root ? localSeats(o.root, o.now) : [],
    Promise.all(o.urls.map((u) => remoteSeat(u, { token: o.token, signal: o.signal }))),
  ]);
  return [...local, ...remote];
}

const money = (n: number) => (Number.isFinite(n) ? n.toFixed(4) : "?");

/**
 * `12345 tok · $0.4200` (+ how many runs reported nothing); `-` when unknown. Runs whose agent reports no
 * cost (Codex) are "cost unknown", never $0: all of them, or named beside the dollars of the others.
 */
export function spendText(s: Spend | null): string {
  if (!s) return "-";
  const tok = s.tokens >= 1_000_000 ? `${(s.tokens / 1_000_000).toFixed(1)}M` : s.tokens >= 10_000 ? `${(s.tokens / 1000).toFixed(1)}k` : String(s.tokens);
  const noCost = s.noCost ?? 0;
  const cost = s.runs > 0 && noCost >= s.runs ? "cost unknown" : `$${money(s.costUsd)}${noCost > 0 ? ` (+${noCost} run(s) of unknown cost)` : ""}`;
  return `${tok} tok · ${cost}${s.unmeasured ? ` (+${s.unmeasured} unmeasured)` : ""}`;
}

/** A seat's runs in one cell: `b/t_1 working 120s (hb 12:00:01Z, due 12:14:00Z)`. */
export function runText(r: FleetRun): string {
  const t = (iso: string | null) => (iso ? iso.slice(11, 19) : "-");
  return `${r.task}${r.title ? ` "${r.title.slice(0, 40)}"` : ""} ${r.phase} ${Math.round(r.ageSeconds)}s (hb ${t(r.lastHeartbeat)}, due ${t(r.deadline)})`;
}

export function stateText(s: FleetSeat): string {
  if (s.state === "paused" && s.pausedUntil) return `paused until ${s.pausedUntil}`;
  return s.state;
}

/** The page's "as of" time, total (a clock can be anything). */
export const asOf = (now: number) => isoOrNull(now) ?? String(now);
