// The fleet as an HTML page (the loopback HTTP server's `/`): server-rendered, no script, no build
// step; refreshes itself every 5 s. Every cell comes from task and agent output or remote seats, so
// every cell — numbers included — goes through `esc`, and the server sends a CSP that allows no script.
import { dirname } from "node:path";
import { systemClock } from "../time/clock.js";
import { type FleetSeat, asOf, collectFleet, runText, spendText, stateText } from "./fleet.js";

export const esc = (s: string | number) =>
  String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

const STYLE = `body{font:14px system-ui,sans-serif;margin:1.5rem;color:#1b1f24}table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #d0d7de;padding:.4rem .6rem;text-align:left;vertical-align:top}th{background:#f6f8fa}
.state{font-weight:600}.working{color:#1a7f37}.idle{color:#57606a}.paused,.budget,.stopping{color:#9a6700}
.auth,.unreachable,.unreadable,.not-running{color:#cf222e}.err{color:#cf222e;max-width:28rem}small{color:#57606a}`;

/** The page's Content-Security-Policy: no script, no frames, no forms; the one inline style sheet. */
export const FLEET_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function seatRow(s: FleetSeat): string {
  const cls = s.state.replace(/[^a-z]+/g, "-");
  const runs = s.runs.length ? s.runs.map((r) => `<div class="run">${esc(runText(r))}</div>`).join("") : "<small>none</small>";
  return `<tr data-seat="${esc(s.seat)}" data-state="${esc(s.state)}">
<td><b>${esc(s.seat)}</b><br><small>${esc(s.assignee ?? "")} · ${esc(s.source)}${s.isolation ? ` · isolation: ${esc(s.isolation)}` : ""}</small></td>
<td>${esc(s.agent ?? "-")}</td>
<td class="state ${esc(cls)}">${esc(stateText(s))}${s.reason ? `<br><small>${esc(s.reason.slice(0, 200))}</small>` : ""}</td>
<td class="runs">${runs}</td>
<td class="today">${esc(spendText(s.today))}</td>
<td class="window">${esc(spendText(s.window5h))}</td>
<td class="outbox">${esc(s.outboxBacklog ?? "-")}</td>
<td class="err">${esc((s.lastError ?? "").slice(0, 300))}</td>
</tr>`;
}

export function fleetHtml(seats: readonly FleetSeat[], now: number): string {
  const working = seats.filter((s) => s.state === "working").length;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="5">
<title>hermes-bridge fleet</title><style>${STYLE}</style></head>
<body><h1>hermes-bridge fleet</h1>
<p id="summary">${seats.length} seat(s), ${working} working · as of ${esc(asOf(now))}</p>
<table id="fleet"><thead><tr><th>seat</th><th>agent</th><th>state</th><th>runs (task, age, last heartbeat, deadline)</th><th>today</th><th>last 5 h</th><th>outbox</th><th>last error</th></tr></thead>
<tbody>
${seats.map(seatRow).join("\n")}
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
    return fleetHtml(await collectFleet({ root: c.fleet.root ?? dirname(c.stateDir), urls: c.fleet.urls, now, token: o.token, signal }), now);
  });
  return (signal) => shared.get(signal);
}
