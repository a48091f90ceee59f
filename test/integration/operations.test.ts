// Operating the daemon: metrics and status after a known sequence, usage-limit pause and resume.
import { afterEach, describe, expect, it } from "vitest";
import { request } from "undici";
import { HttpServer } from "../../src/observe/http.js";
import type { RunReport } from "../../src/run/task-run.js";
import { AGENT, runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { untilHost } from "../helpers/steering.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

async function get(url: string): Promise<{ status: number; text: string }> {
  const r = await request(url);
  return { status: r.statusCode, text: await r.body.text() };
}

function closedN(d: { on(e: string, f: (r: RunReport) => void): unknown }, n: number): Promise<RunReport[]> {
  const got: RunReport[] = [];
  return new Promise((resolve) =>
    d.on("run:closed", (r) => {
      got.push(r);
      if (got.length === n) resolve(got);
    }),
  );
}

describe("operations", () => {
  it("/metrics, /status and /healthz after a known sequence", async () => {
    emu = await Emu.create();
    await emu.createTask("ok", { assignee: SEAT, body: "MODE:complete" });
    await emu.createTask("stuck", { assignee: SEAT, body: "MODE:block" });
    const b = await runBridge(emu, { once: false, base: { discovery: { watch: false, sweepSeconds: 3600, debounceMs: 10 }, http: { port: 0 } } });
    const two = closedN(b.daemon, 2);
    if (!b.built.metrics) throw new Error("metrics are built when http.port is set");
    const http = new HttpServer(b.daemon, b.built.metrics);
    const port = await http.listen(0);
    try {
      await two;
      const base = `http://127.0.0.1:${port}`;
      const m = (await get(`${base}/metrics`)).text;
      expect(m).toContain('hkb_claims_total{board="bridge"} 2');
      expect(m).toContain('hkb_completes_total{board="bridge"} 1');
      expect(m).toContain('hkb_blocks_total{board="bridge",cause="spec undecided"} 1');
      expect(m).toContain("hkb_outbox_backlog 0");
      expect(m).toContain("hkb_seat_paused 0");
      expect(m).toMatch(/hkb_pickup_latency_seconds_count\{board="bridge"\} 2/);
      expect(m).toMatch(/hkb_run_duration_seconds_count\{board="bridge",decision="complete"\} 1/);
      expect(m).toMatch(/hkb_cli_calls_total\{verb="claim",exit_code="0",transport="(server|process)"\} 2/);
      expect(m).toMatch(/hkb_cli_call_duration_seconds_bucket\{le="\+Inf",verb="complete"\} 1/);
      const s = JSON.parse((await get(`${base}/status`)).text) as { runs: unknown[]; seat: { paused: boolean }; outbox: { backlog: number }; healthy: boolean };
      expect(s.runs).toEqual([]);
      expect(s.seat.paused).toBe(false);
      expect(s.outbox.backlog).toBe(0);
      expect(s.healthy).toBe(true);
      expect((await get(`${base}/healthz`)).status).toBe(200);
      expect((await get(`${base}/nope`)).status).toBe(404);
    } finally {
      await b.daemon.stop();
      await http.close();
    }
  });

  it("a usage limit pauses the seat and hands the task back; claiming resumes after the reset, and the seat continues its session", async () => {
    emu = await Emu.create();
    const limited = await emu.createTask("limited", { assignee: SEAT, body: "MODE:pool", priority: 5 });
    const b = await runBridge(emu, {
      once: false,
      env: { FIXTURE_RESET_MS: "4000", FIXTURE_LIMITED: "1", FIXTURE_SEAT: "solo" },
      base: {
        seat: { name: SEAT, limitMarginSeconds: 0 },
        discovery: { watch: false, sweepSeconds: 3600, debounceMs: 10 },
        agent: {
          kind: "command",
          command: [process.execPath, (await import("../helpers/bridge.js")).AGENT],
          passEnv: ["FIXTURE_RESET_MS", "FIXTURE_LIMITED", "FIXTURE_SEAT"],
          // the seat's own check confirms the limit (agent.check exit 75): the agent's reset stands
          check: ["sh", "-c", "exit 75"],
        },
      },
    });
    try {
      const first = await new Promise<RunReport>((r) => b.daemon.once("run:closed", r));
      // listen before anything slow happens: the pause is short
      let paused = true;
      let claimedWhilePaused = false;
      b.daemon.on("claimed", () => {
        if (paused) claimedWhilePaused = true;
      });
      const resumed = new Promise<void>((r) =>
        b.daemon.once("seat:resumed", () => {
          paused = false;
          r();
        }),
      );
      expect(first).toMatchObject({ taskId: limited, handedOff: "handoff" });
      expect(b.daemon.status().seat.paused).toBe(true);
      const d = await emu.show(limited);
      expect(d.task.status).toBe("ready");
      expect(String(d.events.findLast((e) => e.kind === "reclaimed")?.payload?.reason)).toMatch(/usage limit of seat test-seat \(usage\) until 20/);
      // nothing is claimed while paused (neither the handed-back task nor a new one) until the seat resumes
      const later = await emu.createTask("later", { assignee: SEAT, body: "MODE:complete" });
      const closes: RunReport[] = [];
      const both = new Promise<void>((r) =>
        b.daemon.on("run:closed", (rep) => {
          closes.push(rep);
          if (closes.length === 2) r();
        }),
      );
      b.daemon.scheduler.wake(b.built.boards[0] as never, 0);
      await resumed;
      await both;
      expect(claimedWhilePaused).toBe(false);
      // the higher-priority handed-back task first: this seat continues its own session
      expect(closes.map((c) => c.taskId)).toEqual([limited, later]);
      expect((await emu.show(limited)).runs.at(-1)?.summary).toMatch(/^done by solo \(resumed sess-/);
      expect((await emu.show(later)).task.status).toBe("done");
    } finally {
      await b.daemon.stop();
    }
  });
});

describe("auth failure and status", () => {
  it("an auth failure blocks with `auth missing`, pauses the seat, and claims nothing more", async () => {
    emu = await Emu.create();
    const first = await emu.createTask("auth", { assignee: SEAT, body: "MODE:auth", priority: 9 });
    const second = await emu.createTask("after", { assignee: SEAT, body: "MODE:complete" });
    // the seat's own check confirms the failed login (agent.check exit 77)
    const b = await runBridge(emu, {
      base: { agent: { kind: "command", command: [process.execPath, AGENT], killGraceSeconds: 1, check: ["sh", "-c", "exit 77"] } },
    });
    await b.daemon.done;
    const d = await emu.show(first);
    const blocked = d.events.findLast((e) => e.kind === "blocked")?.payload;
    expect(String(blocked?.reason)).toMatch(/^cause: auth missing$/m);
    expect(blocked?.kind).toBe("capability");
    expect((await emu.show(second)).task.status).toBe("ready");
    const s = b.daemon.status();
    expect(s.seat.paused).toBe(true);
    expect(s.seat.reason).toMatch(/doctor/);
  });

  it("`hermes-bridge status` reads the state dir when no daemon answers", async () => {
    emu = await Emu.create();
    await emu.createTask("s", { assignee: SEAT, body: "MODE:complete" });
    const b = await runBridge(emu);
    await b.daemon.done;
    const { statusCommand } = await import("../../src/cli/status.js");
    let out = "";
    const code = await statusCommand(
      { json: false, flags: { board: "bridge", assignee: SEAT, "state-dir": b.config.stateDir, "agent-command": "true" } },
      {},
      (s) => {
        out += s;
      },
    );
    expect(code).toBe(0);
    expect(out).toMatch(/^seat test-seat on bridge — idle, claiming ready tasks/m);
    expect(out).toContain("no runs in flight");
    expect(out).toMatch(/outbox backlog: 0/);
  });

  it("`status` over a run in flight says the seat is working on it (not 'claiming')", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("long", { assignee: SEAT, body: "MODE:hang" });
    const b = await runBridge(emu, { once: false, base: { http: { port: 0 } } });
    try {
      await b.monitor.phase(id, "working");
      const { statusCommand } = await import("../../src/cli/status.js");
      const flags = { board: "bridge", assignee: SEAT, "state-dir": b.config.stateDir, "agent-command": "true" };
      // the status the seat writes next (every few seconds) carries the run
      const out = await untilHost("a status with the run", async () => {
        let text = "";
        expect(await statusCommand({ json: false, flags }, {}, (s) => (text += s))).toBe(0);
        return text.includes(`bridge/${id}`) ? text : null;
      });
      expect(out).toMatch(/^seat test-seat on bridge — working on 1 run;/m);
    } finally {
      await b.daemon.stop();
      await b.daemon.done.catch(() => undefined);
    }
  });
});
