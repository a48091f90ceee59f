// The status snapshot a seat writes is one the fleet can read: its jail's and limits' whys within the bounds the
// fleet's schema holds them to. Found deploying five seats under systemd and compose in containers (issue 49): the
// limits' why named the host's cgroup paths (863–934 characters, over the 800 the fleet then took) and
// `hermes-bridge fleet` and the fleet page showed every seat `unreadable`.
import { expect, it } from "vitest";
import { Outbox } from "../../src/outbox/outbox.js";
import { buildSnapshot, type SnapshotInput } from "../../src/observe/status.js";
import { WHY_MAX, parseSnapshot } from "../../src/observe/snapshot.js";
import { snapshotInput } from "../helpers/snapshot-input.js";
import { scratchDir } from "../helpers/tmp.js";

const long = (what: string, n: number) => `${what}: ${"/sys/fs/cgroup/memory/libpod_parent/libpod-53a3a05439b6".repeat(Math.ceil(n / 55))}`.slice(0, n);

/** A paused seat (its reason and fix on the snapshot too), with `over`. */
const input = (over: Partial<SnapshotInput>): SnapshotInput =>
  snapshotInput({
    seat: { paused: () => true, authFailed: () => true, pausedUntil: () => null, reason: "a limit", fix: "claude auth login" },
    outbox: new Outbox(scratchDir("hkb-status-bounds-")),
    ...over,
  });

it("a seat whose limits' why names long cgroup paths writes a snapshot the fleet reads (a why too long is cut, saying so)", () => {
  const snap = buildSnapshot(
    input({ limits: { mode: "rlimit", why: long("per-process limits only", 2500) }, isolation: { mode: "none", why: long("bubblewrap", 700) } }),
  );
  const read = parseSnapshot(JSON.stringify(snap));
  expect(read).not.toHaveProperty("error");
  expect(snap.seat.limits?.why).toHaveLength(WHY_MAX.limits);
  expect(snap.seat.limits?.why.endsWith("…")).toBe(true);
  expect(snap.seat.limits?.why.startsWith("per-process limits only")).toBe(true);
  expect(snap.seat.isolation?.why).toHaveLength(WHY_MAX.isolation);
});

it("short texts are written as they are", () => {
  const snap = buildSnapshot(
    input({
      limits: { mode: "rlimit", why: "per-process limits only" },
      seat: { paused: () => false, authFailed: () => false, pausedUntil: () => null, reason: null, fix: null },
    }),
  );
  expect(snap.seat.limits).toEqual({ mode: "rlimit", why: "per-process limits only" });
  expect(parseSnapshot(JSON.stringify(snap))).not.toHaveProperty("error");
});
