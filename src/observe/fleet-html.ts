// The fleet as an HTML page (the loopback HTTP server's `/`): server-rendered, no script, no build
// step; refreshes itself every 5 s. Every cell comes from task and agent output or remote seats, so
// every cell — numbers included — goes through `esc`, and the server sends a CSP that allows no script.
import { homedir } from "node:os";
import { dirname } from "node:path";
import type { Spend } from "../state/ledger.js";
import { systemClock } from "../time/clock.js";
import { type FleetRun, type FleetSeat, asOf, collectFleet, spendText } from "./fleet.js";
import { esc, longText, shortSource, timeCell, zoneName } from "./fleet-cells.js";
import { levelFlags, outcomeStrip, runTimeChart } from "./fleet-pictures.js";

export { esc } from "./fleet-cells.js";

const STYLE = `body{font:14px system-ui,sans-serif;margin:1.5rem;color:#1b1f24}table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #d0d7de;padding:.45rem .6rem;text-align:left;vertical-align:top}th{background:#f6f8fa;white-space:nowrap}
td{overflow-wrap:anywhere}small{color:#57606a}.seat{min-width:9rem}.agent{white-space:nowrap}.state{font-weight:600;min-width:12rem;max-width:24rem}
.working{color:#1a7f37}.idle{color:#57606a}.paused,.budget,.stopping{color:#9a6700}.auth,.unreachable,.unreadable,.not-running{color:#cf222e}
.state small,.state details,.state .why{font-weight:400}.runs{min-width:14rem}.title{color:#24292f}.run+.run{margin-top:.4rem}.note{color:#24292f;font-style:italic;margin-top:.15rem}
.err{color:#cf222e;min-width:17.5rem;max-width:28rem;white-space:normal}details summary{cursor:pointer}details .full{white-space:pre-wrap;margin-top:.3rem}
code.fix{display:block;margin-top:.3rem;padding:.25rem .4rem;background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px;font:12px ui-monospace,monospace;
color:#24292f;white-space:pre-wrap;overflow-wrap:anywhere;user-select:all}.today,.window{min-width:6.5rem}.outbox{white-space:nowrap}.unknown{color:#9a6700}
.hours{min-width:17rem}.hours svg{display:block}.legend{font-size:12px;margin:.2rem 0 .35rem;max-width:17rem}.lg{white-space:nowrap;margin-right:.45rem}
.lg svg{display:inline;vertical-align:-1px}.pq{display:block}.level{color:#cf222e;font-weight:600;margin-top:.3rem;max-width:20rem}`;

/** The page's Content-Security-Policy: no script, no frames, no forms; the one inline style sheet. */
export const FLEET_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export interface PageOptions {
  /** The fleet's root: local seats are shown by their name under it. */
  root?: string | undefined;
  /** This user's HOME: other local paths are shown with `~`. */
  home?: string | undefined;
}

function stateCell(s: FleetSeat, now: number): string {
  const cls = s.state.replace(/[^a-z]+/g, "-");
  const head =
    s.state === "paused" && s.pausedUntil
      ? `paused until ${timeCell(s.pausedUntil, now, { rel: true })}`
      : s.state === "auth"
        ? "auth: needs an operator"
        : esc(s.state);
  const why = s.reason ? `<br>${longText(s.reason, "why", 140)}` : "";
  const fix = s.fix ? `<code class="fix" title="click to select, then copy">${esc(s.fix)}</code>` : "";
  return `<td class="state ${esc(cls)}">${head}${why}${fix}</td>`;
}

function runCell(r: FleetRun, now: number): string {
  const note = r.lastNote ? `<div class="note" title="the run's last progress note">${esc(r.lastNote.slice(0, 300))}</div>` : "";
  return `<div class="run"><b class="task">${esc(r.task)}</b>${r.title ? ` <span class="title">${esc(r.title.slice(0, 120))}</span>` : ""} ${esc(r.phase)} ${esc(Math.round(r.ageSeconds))}s <small>hb ${timeCell(r.lastHeartbeat, now, { seconds: true })} · due ${timeCell(r.deadline, now, { rel: true })}</small>${note}</div>`;
}

const spendCell = (cls: string, s: Spend | null) => {
  const text = spendText(s);
  return `<td class="${cls}${text.includes("cost unknown") ? " unknown" : ""}"${text.includes("cost unknown") ? ' title="the agent reports no cost (Codex reports tokens only): its dollars are unknown, not zero"' : ""}>${esc(text)}</td>`;
};

function seatRow(s: FleetSeat, now: number, o: PageOptions): string {
  const runs = s.runs.length ? s.runs.map((r) => runCell(r, now)).join("") : "<small>none</small>";
  return `<tr data-seat="${esc(s.seat)}" data-state="${esc(s.state)}">
<td class="seat"><b>${esc(s.seat)}</b><br><small>${esc(s.assignee ?? "")} · ${shortSource(s.source, o)}${s.isolation ? ` · isolation: ${esc(s.isolation)}` : ""}${s.network ? ` · network: ${esc(s.network)}` : ""}${s.limits ? ` · limits: ${esc(s.limits)}` : ""}${s.egressBlocked.length ? `<br>egress refused: ${esc(s.egressBlocked.join(", "))}` : ""}</small></td>
<td class="agent">${esc(s.agent ?? "-")}</td>
${stateCell(s, now)}
<td class="outbox">${esc(s.outboxBacklog ?? "-")}</td>
<td class="err">${s.lastError ? longText(s.lastError, "error") : ""}</td>
<td class="runs">${runs}</td>
${spendCell("today", s.today)}
${spendCell("window", s.window5h)}
<td class="hours">${outcomeStrip(s.hours, now)}${runTimeChart(s.hours)}${levelFlags(s.hours)}</td>
</tr>`;
}

export function fleetHtml(seats: readonly FleetSeat[], now: number, o: PageOptions = {}): string {
  const working = seats.filter((s) => s.state === "working").length;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="5">
<title>hermes-bridge fleet</title><style>${STYLE}</style></head>
<body><h1>hermes-bridge fleet</h1>
<p id="summary">${seats.length} seat(s), ${working} working · as of ${esc(asOf(now))} <small>(times: ${esc(zoneName(now))}, this server's time zone)</small></p>
<table id="fleet"><thead><tr><th>seat</th><th>agent</th><th>state</th><th>outbox</th><th>last error</th><th>runs (task, age, last heartbeat, deadline, last note)</th><th>today</th><th>last 5 h</th><th>last 24 h</th></tr></thead>
<tbody>
${seats.map((s) => seatRow(s, now, o)).join("\n")}
</tbody></table></body></html>
`;
}

/**
 * One collection shared by the requests that arrive while it runs (a reload storm starts one set of
 * fetches), aborted when every request waiting for it has gone.
 */
export class SharedCollection<T> {
  private current: { promise: Promise<T>; ac: AbortController; waiters: number } | null = null;

  constructor(private readonly collect: (signal: AbortSignal) => Promise<T>) {}

  get(signal?: AbortSignal): Promise<T> {
    let cur = this.current;
    if (!cur) {
      const ac = new AbortController();
      const c = { promise: this.collect(ac.signal), ac, waiters: 0 };
      this.current = c;
      cur = c;
      const clear = () => {
        if (this.current === c) this.current = null;
      };
      c.promise.then(clear, clear);
    }
    const c = cur;
    c.waiters += 1;
    if (!signal) return c.promise;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        c.waiters -= 1;
        if (c.waiters === 0) {
          c.ac.abort(new Error("every client left"));
          if (this.current === c) this.current = null;
        }
        reject(new Error("the client left"));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      c.promise.then(
        (v) => {
          signal.removeEventListener("abort", onAbort);
          resolve(v);
        },
        (e: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        },
      );
    });
  }
}

/** The page for a seat's config: the local seats under fleet.root (default: the parent of its state dir) and fleet.urls. */
export function fleetPage(
  c: { stateDir: string; fleet: { root?: string | undefined; urls: string[] } },
  o: { token?: string | undefined } = {},
): (signal?: AbortSignal) => Promise<string> {
  const shared = new SharedCollection(async (signal) => {
    const now = systemClock.now();
    const root = c.fleet.root ?? dirname(c.stateDir);
    return fleetHtml(await collectFleet({ root, urls: c.fleet.urls, now, token: o.token, signal }), now, { root, home: homedir() });
  });
  return (signal) => shared.get(signal);
}
