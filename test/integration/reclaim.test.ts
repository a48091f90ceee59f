// `reclaim` is the one close Hermes does not fence on the run id (hazard: a retry after a lost answer
// reclaims whatever run the task has now). A seat that gives its claim back to claim again with the
// task's max runtime loses the reclaim's answer while a second seat of the lane is watching: the reclaim
// is settled by reading the task, never retried blindly — the second seat's run is never reclaimed.
import { afterEach, expect, it } from "vitest";
import { type Bridge, runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { untilHost } from "../helpers/steering.js";

let emu: Emu | undefined;
afterEach(() => {
  emu?.cleanup();
  emu = undefined;
});

const seat = (e: Emu, name: string, extra: { faults?: string; retryDelayMs?: number } = {}): Promise<Bridge> =>
  runBridge(e, {
    once: false,
    stateName: `state-${name}`,
    ...(extra.faults ? { faults: extra.faults } : {}),
    base: {
      seat: { name },
      claim: { ttlSeconds: 900 },
      discovery: { watch: true, sweepSeconds: 3600, debounceMs: 20 },
      ...(extra.retryDelayMs
        ? {
            hermes: {
              command: e.command,
              home: e.home,
              callServer: "on",
              env: { ...e.extraEnv, HERMES_EMULATOR_FAULTS: extra.faults ?? "" },
              retry: { retries: 3, minDelayMs: extra.retryDelayMs, maxDelayMs: extra.retryDelayMs, deadlineSeconds: 30 },
            },
          }
        : {}),
    },
  });

it("a reclaim whose answer was lost is read back, never retried onto the next seat's run", async () => {
  emu = await Emu.create();
  // seat A claims first (alone on the lane): its reclaim takes effect and its answer is lost; a blind retry
  // would come 5 s later. Seat B starts once that reclaim is on the board and claims the task meanwhile.
  const a = await seat(emu, "seat-a", { faults: "reclaim:crash-after:1", retryDelayMs: 5000 });
  let b: Bridge | undefined;
  try {
    const id = await emu.createTask("sized", { assignee: SEAT, body: "MODE:complete", maxRuntime: "2h" });
    const e = emu;
    await untilHost("seat A's reclaim on the board", async () => (await e.show(id)).events.some((x) => x.kind === "reclaimed"), 60_000);
    b = await seat(emu, "seat-b");
    const done = (r: { taskId: string; decision: string }) => r.taskId === id && r.decision === "complete";
    await Promise.any([a, b].map((s) => s.monitor.next("run:closed", done, { ms: 60_000 })));
    const d = await emu.show(id);
    // one reclaim, of seat A's first run: no run of either seat was reclaimed by a retry
    expect(d.events.filter((e) => e.kind === "reclaimed")).toHaveLength(1);
    expect(d.runs.map((r) => r.outcome)).toEqual(["reclaimed", "completed"]);
    expect(d.events.find((e) => e.kind === "reclaimed")?.payload?.reason).toMatch(/claiming again with the task's max runtime/);
  } finally {
    await a.daemon.stop();
    await b?.daemon.stop();
  }
}, 90_000);
