// `hermes-bridge fleet` as text: one row per seat, each seat's jail and network beside what its runs were refused.
import { expect, it } from "vitest";
import { renderFleet } from "../../src/cli/fleet.js";
import type { FleetSeat } from "../../src/observe/fleet.js";

const seat = (over: Partial<FleetSeat>): FleetSeat => ({
  source: "/var/lib/hkb/a",
  seat: "a",
  assignee: "lane",
  agent: "claude-code",
  state: "idle",
  pausedUntil: null,
  reason: null,
  fix: null,
  isolation: "bwrap",
  limits: "cgroup",
  network: "proxy",
  egressBlocked: [],
  runs: [],
  today: null,
  window5h: null,
  hours: null,
  outboxBacklog: 0,
  lastError: null,
  at: null,
  ...over,
});

it("shows each seat's jail and network, and says so where a seat runs unjailed on the host's network", () => {
  const text = renderFleet(
    [
      seat({}),
      seat({ seat: "b", isolation: "none (bubblewrap is missing)", limits: "rlimit (per-process limits only)", network: null, egressBlocked: [] }),
      seat({ seat: "c", egressBlocked: ["evil.example:443 ×3"] }),
    ],
    Date.UTC(2026, 11, 2),
  );
  const [, head, a, b, c] = text.split("\n");
  expect(head).toMatch(/JAIL \/ NETWORK\s+EGRESS REFUSED/);
  expect(a).toMatch(/^a\s.*bwrap \/ proxy/);
  expect(b).toMatch(/^b\s.*none \(bubblewrap is missing\) \/ host\s+-\s+rlimit \(per-process limits only\)/);
  expect(a).toMatch(/bwrap \/ proxy\s+-\s+cgroup/);
  expect(c).toMatch(/bwrap \/ proxy\s+evil\.example:443 ×3/);
});

it("names the service levels a seat's last 24 hours crossed, under the table", () => {
  const zeros = () => Array<number>(24).fill(0);
  const hours = { from: "2026-12-01T11:00:00.000Z", done: zeros(), blocked: zeros(), other: zeros() };
  const text = renderFleet(
    [seat({}), seat({ seat: "b", hours: { ...hours, verdicts: [{ level: "dead_letter_rate", text: "dead-letter rate 4.8 % ≥ 1.0 % \u001b[31m" }] } })],
    Date.UTC(2026, 11, 2),
  );
  expect(text.trimEnd().split("\n").at(-1)).toBe("! b: dead-letter rate 4.8 % ≥ 1.0 % \\x1b[31m");
});
