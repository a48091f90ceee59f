// The fleet page's pictures of a seat's last 24 hours, as inline SVG (no script, no image fetch: the page's
// CSP allows neither): a strip of outcomes — one column per clock hour, its runs stacked by how they ended
// (done, each block cause, lost, dead letter, given back) — with a legend of the day's counts; a small
// run-time distribution with its p50 and p95; and the service levels the seat says its day crossed. Every
// number and text is the seat's (another party's) data: each goes through `esc`, counts are bounded.
import type { Hours } from "../state/ledger.js";
import { esc, localTime } from "./fleet-cells.js";
import { duration } from "./service-levels.js";

/** The strip's outcomes, in stacking order (bottom first), with their colours (light background, a wall monitor). */
export const OUTCOMES: readonly { key: string; label: string; color: string }[] = [
  { key: "done", label: "done", color: "#2da44e" },
  { key: "test failure", label: "test failure", color: "#cf222e" },
  { key: "environment", label: "environment", color: "#bc4c00" },
  { key: "human decision needed", label: "human decision", color: "#8250df" },
  { key: "spec undecided", label: "spec undecided", color: "#0969da" },
  { key: "auth missing", label: "auth missing", color: "#9a6700" },
  { key: "blocked", label: "blocked", color: "#cf222e" },
  { key: "lost", label: "lost lease", color: "#24292f" },
  { key: "dead letter", label: "dead letter", color: "#a40e26" },
  { key: "given back", label: "given back", color: "#8c959f" },
  { key: "other", label: "other", color: "#afb8c1" },
];

const H = 36;
const COL = 10;
const sum = (a: readonly number[]) => a.reduce((x, y) => x + y, 0);
const at = (a: readonly number[] | undefined, i: number) => Math.max(0, Math.min(1e6, Math.floor(a?.[i] ?? 0)));

/** The outcomes by hour: the seat's finer ones, or (an older seat) done / blocked / other. */
function rows(h: Hours): { key: string; label: string; color: string; hours: number[] }[] {
  const given = h.outcomes ?? { done: h.done, blocked: h.blocked, other: h.other };
  const known = OUTCOMES.filter((o) => given[o.key]);
  const unknown = Object.keys(given).filter((k) => !OUTCOMES.some((o) => o.key === k));
  const other = OUTCOMES.find((o) => o.key === "other") ?? { key: "other", label: "other", color: "#afb8c1" };
  const out = known.map((o) => ({ ...o, hours: Array.from({ length: 24 }, (_, i) => at(given[o.key], i)) }));
  // a key this page does not know (a newer seat's) counts as other
  let rest = out.find((r) => r.key === "other");
  for (const k of unknown) {
    if (!rest) {
      rest = { ...other, hours: Array(24).fill(0) };
      out.push(rest);
    }
    for (let i = 0; i < 24; i += 1) rest.hours[i] = (rest.hours[i] ?? 0) + at(given[k], i);
  }
  return out;
}

/** The last 24 hours as a strip of outcomes (SVG), and the day's counts under it. */
export function outcomeStrip(h: Hours | null, now: number): string {
  if (!h) return "<small>-</small>";
  const rs = rows(h);
  const totals = Array.from({ length: 24 }, (_, i) => sum(rs.map((r) => r.hours[i] ?? 0)));
  const unit = H / Math.max(1, ...totals);
  const from = Date.parse(h.from);
  const cols = totals.map((total, i) => {
    const start = from + i * 3_600_000;
    const label = Number.isFinite(start) ? `${localTime(start, now)}–${localTime(start + 3_600_000, now)}` : `hour ${i + 1}`;
    const said = rs.filter((r) => (r.hours[i] ?? 0) > 0).map((r) => `${r.hours[i]} ${r.label}`);
    let y = H;
    const bars = rs
      .filter((r) => (r.hours[i] ?? 0) > 0)
      .map((r) => {
        const hgt = Math.max(2, (r.hours[i] ?? 0) * unit);
        y -= hgt;
        return `<rect data-outcome="${esc(r.key)}" x="${i * COL}" y="${y.toFixed(1)}" width="${COL - 1}" height="${hgt.toFixed(1)}" fill="${r.color}"/>`;
      })
      .join("");
    return `<g class="hour" data-total="${esc(total)}"><title>${esc(`${label}: ${said.length ? said.join(", ") : "nothing closed"}`)}</title><rect x="${i * COL}" y="0" width="${COL - 1}" height="${H}" fill="#eef1f4"/>${bars}</g>`;
  });
  const day = rs.map((r) => ({ ...r, n: sum(r.hours) })).filter((r) => r.n > 0);
  const legend = day.length
    ? day
        .map(
          (r) =>
            `<span class="lg" data-outcome="${esc(r.key)}"><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${r.color}"/></svg> ${esc(r.n)} ${esc(r.label)}</span>`,
        )
        .join(" ")
    : "nothing closed";
  const aria = day.length ? day.map((r) => `${r.n} ${r.label}`).join(", ") : "nothing closed";
  return `<svg class="strip" role="img" aria-label="${esc(`last 24 h: ${aria}`)}" width="${24 * COL}" height="${H}" viewBox="0 0 ${24 * COL} ${H}">${cols.join("")}</svg><div class="legend">${legend}</div>`;
}

/** 60 → 1m, 3600 → 1h: a bucket's edge, short. */
const edge = (s: number) => (s % 3600 === 0 ? `${s / 3600}h` : s % 60 === 0 ? `${s / 60}m` : `${Math.round(s)}s`);
/** A bucket between two edges, as short as it reads: 1–5m, 30m–1h, 1–2h. */
const span = (a: number, b: number) => {
  const [x, y] = [edge(a), edge(b)];
  return x.slice(-1) === y.slice(-1) ? `${x.slice(0, -1)}–${y}` : `${x}–${y}`;
};
const BUCKET_LABELS = (edges: readonly number[]) => [
  `<${edge(edges[0] ?? 0)}`,
  ...edges.slice(1).map((e, i) => span(edges[i] ?? 0, e)),
  `>${edge(edges.at(-1) ?? 0)}`,
];

/** The day's run times as a small distribution (SVG), with p50 and p95. */
export function runTimeChart(h: Hours | null): string {
  const r = h?.runTimes;
  if (!r || r.n === 0) return "";
  const labels = BUCKET_LABELS(r.edges);
  const w = 32;
  const top = Math.max(1, ...r.counts);
  const bars = r.counts
    .map((c, i) => {
      const hgt = c > 0 ? Math.max(2, (c / top) * 26) : 0;
      return `<g class="bucket" data-count="${esc(c)}"><title>${esc(`${labels[i] ?? "?"}: ${c} run(s)`)}</title><rect x="${i * w}" y="${(26 - hgt).toFixed(1)}" width="${w - 3}" height="${hgt.toFixed(1)}" fill="#57606a"/><text x="${i * w + (w - 3) / 2}" y="36" text-anchor="middle" font-size="9" fill="#57606a">${esc(labels[i] ?? "")}</text></g>`;
    })
    .join("");
  const width = r.counts.length * w;
  return `<svg class="runtimes" role="img" aria-label="${esc(`run times of ${r.n} run(s): p50 ${duration(r.p50)}, p95 ${duration(r.p95)}`)}" width="${width}" height="38" viewBox="0 0 ${width} 38">${bars}</svg><small class="pq">run time p50 ${esc(duration(r.p50))} · p95 ${esc(duration(r.p95))} (${esc(r.n)} runs)</small>`;
}

/** The service levels the seat's day crossed (the same verdicts as `stats`), each flagged. */
export function levelFlags(h: Hours | null): string {
  const vs = h?.verdicts ?? [];
  return vs.map((v) => `<div class="level" data-level="${esc(v.level)}">! ${esc(v.text)}</div>`).join("");
}
