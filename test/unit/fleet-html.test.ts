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
  isolation: null,
  runs: [],
  today: { tokens: 12_345, costUsd: 0.5, runs: 2, unmeasured: 1 },
  window5h: null,
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
          runs: [{ task: `b/${evil}`, phase: "working", ageSeconds: 3, lastHeartbeat: null, deadline: null }],
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
    expect(html).toContain("paused until 2026-12-01T05:00:00.000Z");
    expect(html).toContain("2 seat(s), 1 working");
  });
});
