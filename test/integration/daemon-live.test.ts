// The long-running daemon: wake-ups from `watch`, several boards under one seat limit, shutdown.
import { afterEach, describe, expect, it } from "vitest";
import type { Board } from "../../src/board/port.js";
import { build } from "../../src/daemon/build.js";
import { Daemon } from "../../src/daemon/daemon.js";
import { silentLogger } from "../../src/log/logger.js";
import { bridgeConfig, runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

const next = <T>(emitter: { once(e: string, f: (v: T) => void): unknown }, event: string) => new Promise<T>((r) => emitter.once(event, r));

describe("daemon (long-running)", () => {
  it("wakes on watch for a task created after start (the watch's own line, no scan), then stops cleanly", async () => {
    emu = await Emu.create();
    const b = await runBridge(emu, { once: false, base: { discovery: { watch: true, sweepSeconds: 3600, debounceMs: 20 } } });
    try {
      // nothing is ready at start; a first task brings the watch up (its first line also reconciles: a scan)
      const warm = await emu.createTask("warm-up", { assignee: SEAT, body: "MODE:complete" });
      await b.monitor.next("watch:up");
      await b.monitor.closed(warm);
      await b.monitor.next("scan");
      const mark = b.monitor.seen.length;
      const id = await emu.createTask("late", { assignee: SEAT, body: "MODE:complete" });
      const r = await b.monitor.closed(id);
      expect(r.close).toBe("applied");
      // the claim came off the watch line: the board was not listed between the task's creation and its claim
      const after = b.monitor.seen.slice(mark);
      const claim = after.findIndex((e) => e.name === "claimed" && (e.payload as { taskId: string }).taskId === id);
      expect(claim).toBeGreaterThanOrEqual(0);
      expect(after.slice(0, claim).filter((e) => e.name === "scan")).toEqual([]);
    } finally {
      await b.daemon.stop();
      await b.daemon.stop();
    }
    await b.daemon.done;
  });

  it("works several boards under one seat limit", async () => {
    emu = await Emu.create("alpha");
    const beta = await emu.raw(["kanban", "boards", "create", "beta"]);
    expect(beta.code).toBe(0);
    const a = await emu.createTask("on alpha", { assignee: SEAT, body: "MODE:complete" });
    const betaTask = await emu.raw(["kanban", "--board", "beta", "create", "on beta", "--assignee", SEAT, "--body=MODE:complete", "--json"]);
    const bId = (JSON.parse(betaTask.stdout) as { id: string }).id;
    const b = await runBridge(emu, { base: { boards: ["alpha", "beta"], concurrency: 1 } });
    await b.daemon.done;
    // one at a time: each claim came after the run before it closed (concurrency 1)
    const order = b.monitor.seen.filter((e) => e.name === "claimed" || e.name === "run:closed").map((e) => e.name);
    expect(order).toEqual(["claimed", "run:closed", "claimed", "run:closed"]);
    expect((await emu.show(a)).task.status).toBe("done");
    const beta2 = await emu.raw(["kanban", "--board", "beta", "show", bId, "--json"]);
    expect((JSON.parse(beta2.stdout) as { task: { status: string } }).task.status).toBe("done");
  });

  it("first stop drains within the grace period, then keeps the claim for the restart with a note — no block", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("long", { assignee: SEAT, body: "MODE:hang" });
    const b = await runBridge(emu, { once: false, base: { discovery: { watch: false, sweepSeconds: 3600 }, shutdown: { graceSeconds: 1 } } });
    await next(b.daemon, "heartbeat");
    await b.daemon.stop();
    const d = await emu.show(id);
    expect(d.task.status).toBe("running");
    expect(d.events.filter((e) => e.kind === "blocked")).toEqual([]);
    expect(String(d.events.findLast((e) => e.kind === "heartbeat")?.payload?.note)).toMatch(
      /is restarting: it continues this task in this run when it is back/,
    );
    expect(b.built.outbox.backlog()).toBe(0);
    expect(b.reports.map((r) => r.stopped)).toEqual(["kept"]);
  });

  it("shutdown.inFlight: handback gives the task back to the lane at the stop, saying how far the run got", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("long", { assignee: SEAT, body: "MODE:hang" });
    const b = await runBridge(emu, {
      once: false,
      base: { discovery: { watch: false, sweepSeconds: 3600 }, shutdown: { graceSeconds: 1, inFlight: "handback" } },
    });
    await next(b.daemon, "heartbeat");
    await b.daemon.stop();
    const d = await emu.show(id);
    expect(d.task.status).toBe("ready");
    expect(d.events.filter((e) => e.kind === "blocked")).toEqual([]);
    expect(String(d.events.findLast((e) => e.kind === "reclaimed")?.payload?.reason)).toMatch(/handed back to the lane .*shutdown\.inFlight: handback/);
    expect(b.reports.map((r) => r.stopped)).toEqual(["handed_back"]);
  });

  it("a second signal aborts at once: the claim is kept for the restart", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("long", { assignee: SEAT, body: "MODE:hang" });
    const b = await runBridge(emu, { once: false, base: { discovery: { watch: false, sweepSeconds: 3600 }, shutdown: { graceSeconds: 3600 } } });
    await next(b.daemon, "heartbeat");
    void b.daemon.stop();
    await b.daemon.kill();
    const d = await emu.show(id);
    expect(d.task.status).toBe("running");
    expect(d.events.filter((e) => e.kind === "blocked")).toEqual([]);
  });

  it("stop waits for a claim still under way when the signal came: its run ends before the daemon does", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("claimed late", { assignee: SEAT, body: "MODE:complete" });
    // (a grace long enough for a loaded machine: the run is to end by itself, not be cut by the stop)
    const config = bridgeConfig(emu, { base: { discovery: { watch: false, sweepSeconds: 3600 }, shutdown: { graceSeconds: 600 } } });
    const built = await build(config, process.env, silentLogger);
    const [board] = built.boards;
    if (!board) throw new Error("no board");
    let claimStarted: () => void = () => undefined;
    const started = new Promise<void>((r) => {
      claimStarted = r;
    });
    let letClaimGo: () => void = () => undefined;
    const go = new Promise<void>((r) => {
      letClaimGo = r;
    });
    let claimCutByStop: boolean | undefined;
    // The claim call is held open until the stop signal has been given (a signal that lands mid-claim).
    const slow: Board = Object.create(board, {
      claim: {
        value: async (...a: Parameters<Board["claim"]>) => {
          claimStarted();
          await go;
          // The claim's own signal, as the daemon gave it: the stop must not cut a claim under way (through
          // ssh without the call server, a cut claim that took effect has a lock nothing here can name).
          claimCutByStop = a[2]?.aborted === true;
          return board.claim(...a);
        },
      },
    });
    const daemon = new Daemon({ ...built, boards: [slow], once: false });
    await daemon.start();
    await started;
    const stopped = daemon.stop();
    letClaimGo();
    await stopped;
    // The run the late claim started was finished (its agent completes at once) — not left running.
    expect(claimCutByStop).toBe(false);
    expect((await emu.show(id)).task.status).toBe("done");
    expect(daemon.status().runs).toEqual([]);
  });
});
