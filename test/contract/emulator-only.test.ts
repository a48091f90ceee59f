// Emulator behaviours that the bridge relies on but that a real board cannot be made to show on
// demand: old-version compatibility, watch supervision, SIGINT/SIGTERM handling.
import { afterEach, describe, expect, it } from "vitest";
import { runProcess } from "../../src/process/runner.js";
import { superviseWatch } from "../../src/discovery/watcher.js";
import { systemClock } from "../../src/time/clock.js";
import { Emu } from "../helpers/emulator.js";
import { acquire } from "../../src/lease/acquire.js";
import { newClaimer } from "../../src/lease/lease.js";
import { fencedOf } from "./board-contract.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

describe("emulator and watch", () => {
  it("capabilities: 0.20 has block kinds, a v0.14 board has none and block still works without --kind", async () => {
    emu = await Emu.create();
    expect(await emu.board().capabilities()).toEqual({
      version: "0.20.0",
      blockKinds: ["needs_input", "capability", "transient", "dependency"],
      attach: true,
      heartbeatExtends: false,
      reclaimCountsAsFailure: false,
      namedClaims: false,
      expectedStatus: [],
      // 0.20.0's request-review takes --summary and --reviewer, not --metadata (0.21 does).
      review: true,
      reviewMetadata: false,
      authorizeExistingPr: false,
    });
    const old = emu.board({ env: { parent: process.env, passEnv: [], set: { HERMES_HOME: emu.home, HERMES_EMULATOR_COMPAT: "0.14" }, author: "x" } });
    expect((await old.capabilities()).blockKinds).toEqual([]);
    const id = await emu.createTask("old", { assignee: "s" });
    const { lease } = await acquire(old, id, 60);
    expect(await fencedOf(old, lease).block({ reason: "needs a human", kind: "needs_input" })).toBe("applied");
    expect((await emu.show(id)).task.status).toBe("blocked");
  });

  it("a Hermes whose heartbeat renews named claims (compat named-claims): the capability is read from --help, `--claimer --ttl` renews, 0.20.0 refuses it", async () => {
    emu = await Emu.create();
    const next = emu.board({ env: { parent: process.env, passEnv: [], set: { HERMES_HOME: emu.home, HERMES_EMULATOR_COMPAT: "named-claims" }, author: "x" } });
    expect(await next.capabilities()).toMatchObject({
      heartbeatExtends: true,
      namedClaims: true,
      reclaimCountsAsFailure: true,
      expectedStatus: ["complete", "block", "comment"],
    });
    const id = await emu.createTask("renewed", { assignee: "s" });
    const { lease } = await acquire(next, id, 60, undefined, { claimer: newClaimer("s") });
    expect(lease.claimLock).toMatch(/^hermes-bridge:s:[0-9a-f]{12}$/);
    emu.advance(50);
    await fencedOf(next, lease).heartbeat("still at it", { ttlSeconds: 60 });
    // 100 s after the claim: past the first TTL, inside the renewed one — a dispatch pass keeps it.
    emu.advance(100);
    await emu.kanban(["dispatch", "--json"]);
    expect((await emu.show(id)).task.status).toBe("running");
    emu.advance(0);
    const plain = emu.board();
    await expect(fencedOf(plain, lease).heartbeat(undefined, { ttlSeconds: 60 })).rejects.toThrow(/unrecognized arguments: --ttl=60/);
  });

  it("watch prints (stopped) on SIGINT and dies silently on SIGTERM", async () => {
    emu = await Emu.create();
    for (const [sig, expectOut] of [
      ["SIGINT", "(stopped)"],
      ["SIGTERM", ""],
    ] as const) {
      let pid = 0;
      let banner: () => void = () => undefined;
      const seen = new Promise<void>((r) => {
        banner = r;
      });
      const p = runProcess({
        argv: [...emu.command, "kanban", "--board", "bridge", "watch"],
        env: emu.env(),
        onSpawn: (p) => {
          pid = p;
        },
        onStdoutLine: (l) => l.startsWith("Watching kanban events") && banner(),
      });
      await seen;
      process.kill(pid, sig);
      const r = await p;
      if (expectOut) {
        expect(r.exitCode).toBe(0);
        expect(r.stdout).toContain(expectOut);
      } else {
        expect(r.signal).toBe("SIGTERM");
        expect(r.stdout.trim()).toBe("Watching kanban events. Ctrl-C to stop.");
      }
    }
  });

  it("a dying watch is restarted, and each run asks for a reconcile once it is up", async () => {
    emu = await Emu.create();
    const board = emu.board({
      env: { parent: process.env, passEnv: [], set: { HERMES_HOME: emu.home, HERMES_EMULATOR_FAULTS: "watch:die-after=1" }, author: "x" },
    });
    const ac = new AbortController();
    let restarts = 0;
    const errors: string[] = [];
    const done = superviseWatch({
      board,
      assignee: "s",
      signal: ac.signal,
      clock: systemClock,
      maxBackoffMs: 200,
      onLine: () => undefined,
      onRestart: () => {
        restarts += 1;
        // One event per run: the watch dies after it (die-after=1) and is started again.
        if (restarts < 3) void emu.createTask(`wake ${restarts}`, { assignee: "s" });
        else ac.abort();
      },
      onError: (e) => errors.push(e),
    });
    await done;
    expect(restarts).toBeGreaterThanOrEqual(3);
    expect(errors[0]).toMatch(/watch/);
  });
});
