import { describe, expect, it } from "vitest";
import type { FleetSeat } from "../../src/observe/fleet.js";
import { fleetHtml } from "../../src/observe/fleet-html.js";

const seat = (o: Partial<FleetSeat>): FleetSeat => ({
  source: "/s",
  seat: "h/s",
  assignee: "lane",
  agent: "codex",
  state: "working",
  pausedUntil: null,
  reason: null,
  fix: null,
  isolation: null,
  limits: null,
  network: "proxy",
  egressBlocked: [],
  runs: [],
  today: { tokens: 12_345, costUsd: 0.5, runs: 2, unmeasured: 1 },
  window5h: null,
  hours: null,
  outboxBacklog: 0,
  lastError: null,
  at: null,
  ...o,
});

describe("fleet page", () => {
  it("escapes every text that came from tasks, agents or remote seats", () => {
    const evil = `<img src=x onerror="alert(1)">&'`;
    const html = fleetHtml(
      [
        seat({
          seat: evil,
          lastError: evil,
          reason: evil,
          fix: evil,
          network: evil,
          egressBlocked: [`${evil}:443 ×2`],
          runs: [{ task: `b/${evil}`, phase: "working", ageSeconds: 3, lastHeartbeat: evil, deadline: null, lastNote: evil }],
          source: `/x/${evil}`,
        }),
      ],
      0,
    );
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;");
    expect(html).not.toMatch(/<script/i);
  });

  it("one row per seat with its state and spend; unmeasured runs are shown, not hidden", () => {
    const html = fleetHtml([seat({}), seat({ seat: "h/t", state: "paused", pausedUntil: "2026-12-01T05:00:00.000Z" })], 0);
    expect(html.match(/<tr data-seat=/g)?.length).toBe(2);
    expect(html).toContain("12.3k tok · $0.5000 (+1 unmeasured)");
    expect(html).toContain('paused until <time datetime="2026-12-01T05:00:00.000Z"');
    expect(html).toContain("2 seat(s), 1 working");
  });

  it("the seat's network and the hosts its runs were refused", () => {
    const html = fleetHtml([seat({ egressBlocked: ["exfil.example.test:443 ×3"] })], 0);
    expect(html).toContain("network: proxy");
    expect(html).toContain("egress refused: exfil.example.test:443 ×3");
  });
});

describe("fleet cells", () => {
  it("times in this server's zone and from now; a time that is no time is shown as it came", async () => {
    const { localTime, relative, timeCell } = await import("../../src/observe/fleet-cells.js");
    const now = Date.parse("2026-12-02T10:00:00Z");
    expect(relative(now + 82 * 60_000, now)).toBe("in 1 h 22 min");
    expect(relative(now - 5 * 60_000, now)).toBe("5 min ago");
    expect(relative(now + 3 * 86_400_000, now)).toBe("in 3 d 0 h");
    expect(localTime(now, now)).toMatch(/^\d\d:\d\d$/);
    expect(localTime(now + 2 * 86_400_000, now)).toMatch(/^[A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2} \d\d:\d\d$/);
    expect(timeCell("soon", now)).toBe("soon");
    expect(timeCell("2026-12-02T11:22:00Z", now, { rel: true })).toContain("(in 1 h 22 min)");
  });

  it("sources shortened, the whole on hover; long texts cut with the rest one click away", async () => {
    const { longText, shortSource } = await import("../../src/observe/fleet-cells.js");
    expect(shortSource("/srv/seats/claude-1", { root: "/srv/seats" })).toBe('<span class="src" title="/srv/seats/claude-1">claude-1</span>');
    expect(shortSource("/home/ana/.local/state/hermes-kanban-bridge/c1", { home: "/home/ana" })).toContain(">~/.local/state/hermes-kanban-bridge/c1<");
    expect(shortSource("/a/b/c/d/e", {})).toContain(">…/d/e<");
    expect(shortSource("http://gpu-box:9464/status", {})).toContain(">gpu-box:9464<");
    const long = "x".repeat(300);
    expect(longText(long, "error")).toMatch(/^<details class="error"><summary title="x+">x{160}…<\/summary><div class="full">x{300}<\/div><\/details>$/);
    expect(longText("short", "error")).toBe('<span class="error" title="short">short</span>');
  });

  it("cost unknown where the agent reports none; the 24-hour strip counts each hour", () => {
    const codex = fleetHtml([seat({ today: { tokens: 5360, costUsd: 0, runs: 2, unmeasured: 0, noCost: 2 } })], 0);
    expect(codex).toContain("5360 tok · cost unknown");
    expect(codex).not.toContain("$0.0000");
    const mixed = fleetHtml([seat({ today: { tokens: 100, costUsd: 1.5, runs: 3, unmeasured: 0, noCost: 1 } })], 0);
    expect(mixed).toContain("100 tok · $1.5000 (+1 run(s) of unknown cost)");
    const zeros = () => Array<number>(24).fill(0);
    const hours = { from: "2026-12-01T11:00:00.000Z", done: zeros(), blocked: zeros(), other: zeros() };
    hours.done[23] = 3;
    hours.blocked[20] = 1;
    const html = fleetHtml([seat({ hours })], Date.parse("2026-12-02T10:30:00Z"));
    expect(html.match(/class="hour"/g)?.length).toBe(24);
    // (an older seat says done / blocked / other only)
    expect(html).toMatch(/<g class="hour" data-total="3"><title>\d\d:00–\d\d:00: 3 done<\/title>/);
    expect(html).toMatch(/data-outcome="done"><svg[^>]*>.*?<\/svg> 3 done<\/span> <span class="lg" data-outcome="blocked">/);
    expect(html).toContain('aria-label="last 24 h: 3 done, 1 blocked"');
  });

  it("the day's pictures: outcomes by cause stacked per hour, the run-time distribution, the levels crossed — all escaped", () => {
    const zeros = () => Array<number>(24).fill(0);
    const at = (i: number, n: number) => Object.assign(zeros(), { [i]: n });
    const hours = {
      from: "2026-12-01T11:00:00.000Z",
      done: at(23, 4),
      blocked: at(22, 2),
      other: at(21, 1),
      outcomes: { done: at(23, 4), "test failure": at(22, 1), environment: at(22, 1), lost: at(21, 1), "<b>new</b>": at(20, 2) },
      runTimes: { edges: [60, 300, 900, 1800, 3600], counts: [1, 4, 1, 0, 0, 0], n: 6, p50: 125, p95: 640 },
      verdicts: [{ level: "failure_rate", text: "failure rate 42.9 % ≥ 5.0 % <script>" }],
    };
    const html = fleetHtml([seat({ hours })], Date.parse("2026-12-02T10:30:00Z"));
    expect(html).toContain('aria-label="last 24 h: 4 done, 1 test failure, 1 environment, 1 lost lease, 2 other"');
    // an hour's runs stacked, each outcome its own colour; the hour's counts on hover
    expect(html).toMatch(
      /<title>\d\d:00–\d\d:00: 1 test failure, 1 environment<\/title><rect[^>]*fill="#eef1f4"\/><rect data-outcome="test failure"[^>]*fill="#cf222e"\/><rect data-outcome="environment"[^>]*fill="#bc4c00"\/>/,
    );
    // a key this page does not know counts as other, its name never markup
    expect(html).toContain('<span class="lg" data-outcome="other">');
    expect(html).not.toContain("<b>new</b>");
    expect(html).toContain('<g class="bucket" data-count="4"><title>1–5m: 4 run(s)</title>');
    expect(html).toContain("run time p50 2m05s · p95 10m40s (6 runs)");
    expect([...html.matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((m) => m[1])).toEqual(["&lt;1m", "1–5m", "5–15m", "15–30m", "30m–1h", "&gt;1h"]);
    expect(html).toContain('<div class="level" data-level="failure_rate">! failure rate 42.9 % ≥ 5.0 % &lt;script&gt;</div>');
    expect(html).not.toMatch(/<script/i);
  });
});
