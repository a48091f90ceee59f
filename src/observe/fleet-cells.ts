// The fleet page's cells, as text an operator reads at a glance: times in this server's time zone and
// relative to now, sources shortened (the full path on hover), long texts cut with the rest one click
// away (the 24-hour pictures are fleet-pictures.ts). Every value is another party's data: each goes through `esc` here, and a
// time that is no time is shown as it came.

export const esc = (s: string | number) =>
  String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

const fmt = (o: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat("en-GB", { hourCycle: "h23", ...o });

/** This server's time zone, as the page's times are shown ("CET", "UTC", "GMT+5:30"). */
export function zoneName(now: number): string {
  return (
    fmt({ timeZoneName: "short" })
      .formatToParts(now)
      .find((p) => p.type === "timeZoneName")?.value ?? "local time"
  );
}

/** "15:00" today, "Tue 2 Dec 15:00" another day — this server's local time. */
export function localTime(ms: number, now: number, seconds = false): string {
  const time = fmt({ hour: "2-digit", minute: "2-digit", ...(seconds ? { second: "2-digit" } : {}) }).format(ms);
  const day = (t: number) => fmt({ year: "numeric", month: "2-digit", day: "2-digit" }).format(t);
  return day(ms) === day(now) ? time : `${fmt({ weekday: "short", day: "numeric", month: "short" }).format(ms)} ${time}`;
}

/** "in 1 h 22 min", "5 min ago", "now". */
export function relative(ms: number, now: number): string {
  const d = ms - now;
  const m = Math.round(Math.abs(d) / 60_000);
  if (m === 0) return "now";
  const h = Math.floor(m / 60);
  const days = Math.floor(h / 24);
  const span = days >= 2 ? `${days} d ${h % 24} h` : h > 0 ? `${h} h ${m % 60} min` : `${m} min`;
  return d > 0 ? `in ${span}` : `${span} ago`;
}

/** A `<time>` of an ISO text: local time (and how far from now), the ISO on hover; text that is no time is shown as it came. */
export function timeCell(iso: string | null, now: number, o: { seconds?: boolean; rel?: boolean } = {}): string {
  if (!iso) return "-";
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return esc(iso);
  const rel = o.rel ? ` <small class="rel">(${esc(relative(ms, now))})</small>` : "";
  return `<time datetime="${esc(iso)}" title="${esc(iso)}">${esc(localTime(ms, now, o.seconds))}</time>${rel}`;
}

/**
 * A seat's source, short: a state dir under the fleet's root by its name there, one under HOME with `~`,
 * another by its last two parts; a URL by host (and path when it is not /status). The full text on hover.
 */
export function shortSource(source: string, o: { root?: string | undefined; home?: string | undefined }): string {
  let short = source;
  if (/^https?:\/\//.test(source)) {
    try {
      const u = new URL(source);
      short = u.pathname === "/status" || u.pathname === "/" ? u.host : `${u.host}${u.pathname}`;
    } catch {
      short = source;
    }
  } else if (o.root && source.startsWith(`${o.root.replace(/\/+$/, "")}/`)) short = source.slice(o.root.replace(/\/+$/, "").length + 1);
  else if (o.home && o.home !== "/" && source.startsWith(`${o.home}/`)) short = `~/${source.slice(o.home.length + 1)}`;
  else if (source.split("/").length > 4) short = `…/${source.split("/").slice(-2).join("/")}`;
  return `<span class="src" title="${esc(source)}">${esc(short)}</span>`;
}

/** A text that may be long: the first part readable in the cell, the whole one click away (and on hover). */
export function longText(text: string, cls: string, cut = 160): string {
  if (text.length <= cut) return `<span class="${cls}" title="${esc(text)}">${esc(text)}</span>`;
  return `<details class="${cls}"><summary title="${esc(text.slice(0, 2000))}">${esc(text.slice(0, cut))}…</summary><div class="full">${esc(text)}</div></details>`;
}
