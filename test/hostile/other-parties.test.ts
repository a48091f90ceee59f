// Nothing another party sends can crash, hang or mislead the daemon (robustness issue): remote seats'
// snapshots, the Host a browser sends, an agent's limit and result, a board writer's card edits, a
// throwing listener. Each row of the issue's table is a test here (rows 5–9 also in
// test/unit/other-parties.test.ts at the unit level).
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { fleetCommand } from "../../src/cli/fleet.js";
import { usageCommand } from "../../src/cli/usage.js";
import { statusCommand } from "../../src/cli/status.js";
import { fleetPage } from "../../src/observe/fleet-html.js";
import { HttpServer } from "../../src/observe/http.js";
import { Metrics } from "../../src/observe/metrics.js";
import { build } from "../../src/daemon/build.js";
import { Daemon } from "../../src/daemon/daemon.js";
import { silentLogger } from "../../src/log/logger.js";
import type { RunReport } from "../../src/run/task-run.js";
import { AGENT, SEAT, bridgeConfig, runBridge } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";
import { type HostileSeat, hostileSeat } from "../helpers/hostile-seat.js";

let emu: Emu | undefined;
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  emu?.cleanup();
  emu = undefined;
});

async function seats(...kinds: Parameters<typeof hostileSeat>[0][]): Promise<HostileSeat[]> {
  const out = await Promise.all(kinds.map(hostileSeat));
  for (const s of out) cleanups.push(() => s.close());
  return out;
}

async function get(url: string, headers: Record<string, string> = {}, signal?: AbortSignal) {
  const r = await request(url, { headers, signal });
  return { status: r.statusCode, headers: r.headers, text: await r.body.text() };
}

async function serve(
  o: ConstructorParameters<typeof HttpServer>[2],
  daemon: ConstructorParameters<typeof HttpServer>[0] = { healthy: () => true, status: () => ({ ok: 1 }) },
) {
  const http = new HttpServer(daemon, new Metrics(), o);
  const port = await http.listen(0);
  cleanups.push(() => http.close());
  return `http://127.0.0.1:${port}`;
}

describe("rows 1–4: the fleet page and HTTP", () => {
  it("row 1: a remote snapshot of the wrong type, or any answer that throws, is a row or a 500 — the server lives", async () => {
    const [wrong, notJson, huge] = await seats("wrong-type", "not-json", "huge-number");
    const dir = join(process.cwd(), "test-artifacts", `fleet-${process.pid}-${Date.now()}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    cleanups.push(async () => (await import("node:fs")).rmSync(dir, { recursive: true, force: true }));
    const urls = [wrong, notJson, huge].map((s) => s?.url ?? "");
    let throws = true;
    const base = await serve(
      { page: fleetPage({ stateDir: join(dir, "s"), fleet: { urls } }) },
      {
        healthy: () => true,
        status: () => {
          if (throws) throw new Error("render failed");
          return {};
        },
      },
    );
    const page = await get(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.text.match(/data-state="unreadable"/g)).toHaveLength(3);
    expect(page.text).toMatch(/seat\.name: Invalid input: expected string, received number/);
    expect(page.text).toMatch(/not JSON/);
    expect((await get(`${base}/status`)).status).toBe(500);
    expect((await get(`${base}/metrics`)).status).toBe(500);
    throws = false;
    expect((await get(`${base}/status`)).status).toBe(200);
    let text = "";
    expect(await fleetCommand({ flags: {}, root: dir, urls }, {}, (s) => (text += s))).toBe(0);
    expect(text.match(/unreadable/g)?.length).toBe(3);
  });

  it("row 2: markup from a remote seat never reaches the page as markup; the page forbids scripts", async () => {
    const [xss] = await seats("xss");
    const base = await serve({ page: fleetPage({ stateDir: "/nonexistent/s", fleet: { urls: [xss?.url ?? ""] } }) });
    const page = await get(`${base}/`);
    expect(page.text).not.toMatch(/<script/i);
    expect(page.text).toMatch(/data-state="unreadable"/);
    expect(page.text).toMatch(/outbox\.backlog: Invalid input: expected number/);
    expect(String(page.headers["content-security-policy"])).toMatch(/default-src 'none'/);
    expect(String(page.headers["content-security-policy"])).not.toMatch(/script-src/);
  });

  it("row 3: an endless or silent remote is cut at 1 MiB or its deadline; concurrent pages share one fetch; a client that leaves aborts it", async () => {
    const [endless, silent] = await seats("endless", "silent");
    const base = await serve({ page: fleetPage({ stateDir: "/nonexistent/s", fleet: { urls: [endless?.url ?? "", silent?.url ?? ""] } }) });
    const pages = await Promise.all(Array.from({ length: 5 }, () => get(`${base}/`)));
    for (const p of pages) {
      expect(p.status).toBe(200);
      expect(p.text).toMatch(/snapshot is larger than 1048576 bytes/);
      expect(p.text).toMatch(/no answer within 3000 ms/);
    }
    expect(endless?.requests).toBe(1);
    expect(silent?.requests).toBe(1);
    // a client that leaves: its (only) collection is aborted, the remote sees its connection closed
    const ac = new AbortController();
    const leaving = get(`${base}/`, {}, ac.signal).catch(() => "left");
    for (let i = 0; i < 100 && (silent?.requests ?? 0) < 2; i++) await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    expect(await leaving).toBe("left");
    for (let i = 0; i < 100 && (silent?.aborted ?? 0) < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(silent?.aborted).toBeGreaterThanOrEqual(2);
  });

  it("row 4: a Host that is not this seat's is refused (DNS rebinding); a token guards all but /healthz", async () => {
    const open = await serve({ page: async () => "<p>page</p>" });
    expect((await get(`${open}/status`, { host: "attacker.example" })).status).toBe(421);
    expect((await get(`${open}/`, { host: "attacker.example:9464" })).status).toBe(421);
    expect((await get(`${open}/status`, { host: "localhost:1" })).status).toBe(200);
    const guarded = await serve({ token: "s3cret-token", allowedHosts: ["seat.internal"], page: async () => "<p>page</p>" });
    expect((await get(`${guarded}/status`)).status).toBe(401);
    expect((await get(`${guarded}/status`, { authorization: "Bearer wrong" })).status).toBe(401);
    expect((await get(`${guarded}/status`, { authorization: "Bearer s3cret-token", host: "seat.internal:9464" })).status).toBe(200);
    expect((await get(`${guarded}/`, { authorization: `Basic ${Buffer.from("ops:s3cret-token").toString("base64")}` })).status).toBe(200);
    expect((await get(`${guarded}/healthz`)).status).toBe(200);
  });

  it("row 4: a bind other machines can reach without a token is a config error naming the key", async () => {
    const { loadConfig } = await import("../../src/agents/kinds.js");
    const base = { boards: ["b"], assignee: "lane", agent: { kind: "command", command: ["true"] } };
    expect(() => loadConfig({ env: {}, base: { ...base, http: { port: 9464, host: "0.0.0.0" } } })).toThrow(
      /http\.host: 0\.0\.0\.0 is reachable from other machines/,
    );
    expect(() => loadConfig({ env: {}, base: { ...base, http: { port: 9464, host: "0.0.0.0", tokenEnv: "HKB_T" } } })).toThrow(
      /http\.tokenEnv: names HKB_T, which is not set/,
    );
    expect(loadConfig({ env: { HKB_T: "t" }, base: { ...base, http: { port: 9464, host: "0.0.0.0", tokenEnv: "HKB_T" } } }).http.host).toBe("0.0.0.0");
  });

  it("the daemon under --unhandled-rejections=strict survives every endpoint under hostile input", async () => {
    emu = await Emu.create();
    const [wrong, xss, endless, notJson] = await seats("wrong-type", "xss", "endless", "not-json");
    const stateDir = join(emu.dir, "state");
    const cfg = join(emu.dir, "seat.yaml");
    writeFileSync(
      cfg,
      [
        "boards: [bridge]",
        `assignee: ${SEAT}`,
        `hermes: {command: ["${process.execPath}", "${emu.command[1]}"], home: "${emu.home}", callServer: "on"}`,
        `agent: {kind: command, command: ["${process.execPath}", "-e", "0"]}`,
        `stateDir: "${stateDir}"`,
        "http: {port: 0}",
        `fleet: {urls: [${[wrong, xss, endless, notJson].map((s) => `"${s?.url}"`).join(", ")}]}`,
        "discovery: {watch: false}",
      ].join("\n"),
    );
    const child = spawn(process.execPath, ["--unhandled-rejections=strict", CLI_BIN, "run", "--config", cfg], {
      env: { PATH: process.env.PATH ?? "", HOME: emu.dir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += String(d)));
    child.stderr.on("data", (d) => (out += String(d)));
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    cleanups.push(() => child.kill("SIGKILL"));
    const listening = () =>
      out
        .split("\n")
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as { msg?: string; url?: string }];
          } catch {
            return [];
          }
        })
        .find((l) => l.msg?.startsWith("observability server listening"));
    let port = 0;
    for (let i = 0; i < 200 && !port; i++) {
      port = Number(/:(\d+)$/.exec(listening()?.url ?? "")?.[1] ?? 0);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(port, out).toBeGreaterThan(0);
    const base = `http://127.0.0.1:${port}`;
    const hosts = [undefined, "attacker.example", "", "[::1]:1", "a:b:c"];
    for (const path of ["/", "/fleet", "/status", "/metrics", "/healthz", "/nope", "/%00", "/?x=<script>"])
      for (const host of hosts) {
        const r = await request(`${base}${path}`, { headers: host === undefined ? {} : { host } }).catch(() => null);
        await r?.body.text();
      }
    const burst = await Promise.all(Array.from({ length: 8 }, () => get(`${base}/`)));
    expect(burst.every((p) => p.status === 200 && !/<script/i.test(p.text))).toBe(true);
    expect((await get(`${base}/healthz`)).status).toBeLessThan(600);
    expect(child.exitCode).toBeNull();
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(out).not.toMatch(/UnhandledPromiseRejection|unhandled/i);
  });
});

/** The fixture agent on a seat whose own check confirms a usage limit (agent.check exit 75): the agent's reset is acted on, bounded. */
const CONFIRMING = { kind: "command", command: [process.execPath, AGENT], killGraceSeconds: 1, check: ["sh", "-c", "exit 75"] };

/** Flags that reach the emulator board without a config. */
const boardFlags = (e: Emu) => ({ board: "bridge", hermes: `${process.execPath} ${e.command[1]}`, "hermes-home": e.home });

describe("rows 5–11 on the emulator", () => {
  it("row 5: a reset in 2100 pauses the seat for seat.maxLimitPauseHours at most, and the card says it was clamped", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("far", { assignee: SEAT, body: "MODE:limit-far" });
    // (the seat's own check confirms the limit — agent.check exit 75 — so the agent's reset stands, bounded)
    const b = await runBridge(emu, { once: true, base: { seat: { name: SEAT, maxLimitPauseHours: 2, limitMarginSeconds: 0 }, agent: CONFIRMING } });
    await b.daemon.done;
    const s = b.daemon.status();
    const until = Date.parse(s.seat.pausedUntil ?? "");
    expect(until - Date.now()).toBeLessThanOrEqual(2 * 3600_000);
    expect(until - Date.now()).toBeGreaterThan(2 * 3600_000 - 120_000);
    expect(s.seat.reason).toMatch(/beyond seat\.maxLimitPauseHours \(2 h\): clamped/);
    const d = await emu.show(id);
    expect(d.comments.map((c) => c.body).join("\n")).toMatch(/2100-01-01T00:00:00.000Z\) is beyond seat\.maxLimitPauseHours \(2 h\): clamped to/);
  });

  it("row 6: resets_at 1e300 leaves a readable seat.json and a working status (the pause is the unknown-reset wait)", async () => {
    emu = await Emu.create();
    await emu.createTask("huge", { assignee: SEAT, body: "MODE:limit-far" });
    const b = await runBridge(emu, {
      once: true,
      env: { FIXTURE_RESET_RAW: "huge" },
      base: { agent: { ...CONFIRMING, passEnv: ["FIXTURE_RESET_RAW"] } },
    });
    await b.daemon.done;
    const seat = JSON.parse(readFileSync(join(b.config.stateDir, "seat.json"), "utf8")) as { until: number; reason: string };
    expect(Number.isFinite(seat.until)).toBe(true);
    expect(seat.until - Date.now()).toBeLessThan(20 * 60_000);
    expect(seat.reason).toMatch(/is not a time/);
    expect(() => b.daemon.status()).not.toThrow();
    let text = "";
    expect(await statusCommand({ flags: { "state-dir": b.config.stateDir, board: "bridge" } }, {}, (t) => (text += t))).toBe(0);
    expect(text).toMatch(/PAUSED until 20\d\d-/);
  });

  it("row 7: a 200 KiB error message and 500 artifacts complete, capped and fitted — never a stranded task", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("big", { assignee: SEAT, body: "MODE:big-result" });
    const b = await runBridge(emu, { once: true });
    await b.daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    const meta = d.runs.at(-1)?.metadata as { error: { message: string }; artifacts: unknown[] };
    expect(Buffer.byteLength(JSON.stringify(meta))).toBeLessThanOrEqual(64 * 1024);
    expect(meta.error.message).toMatch(/truncated by hermes-kanban-bridge/);
    expect(meta.artifacts).toHaveLength(100);
    expect(b.reports[0]).toMatchObject({ decision: "complete", close: "applied" });
  });

  it("row 8: a card edited by a board writer is not counted, for any seat; the CSV holds no formula", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("done by the bridge", { assignee: SEAT, body: "MODE:complete" });
    const b = await runBridge(emu, { once: true });
    await b.daemon.done;
    const forged = JSON.stringify({ bridge: { tokens: { input: -5_000_000 }, cost_usd: -999.5, seat: "=cmd|'/c calc'!A1" } });
    expect((await emu.kanban(["edit", id, "--result", "x", "--metadata", forged])).code).toBe(0);
    let json = "";
    expect(await usageCommand({ flags: boardFlags(emu), json: true, since: "1d" }, {}, (t) => (json += t))).toBe(0);
    const r = JSON.parse(json) as { total: { runs: number; tokensIn: number; costUsd: number }; untrusted: { key: string; why: string }[] };
    expect(r.total).toMatchObject({ runs: 0, tokensIn: 0, costUsd: 0 });
    expect(r.untrusted).toEqual([{ key: `bridge/${id} run 1`, why: "its record was edited after the close (kanban edit)" }]);
    let csv = "";
    await usageCommand({ flags: boardFlags(emu), csv: true, since: "1d", by: "seat" }, {}, (t) => (csv += t));
    expect(csv).not.toMatch(/(^|,)=/m);
  });

  it("row 10: board-wide commands need no --assignee", async () => {
    emu = await Emu.create();
    let out = "";
    expect(await usageCommand({ flags: boardFlags(emu), json: true }, {}, (t) => (out += t))).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ boards: ["bridge"], total: { runs: 0 } });
    await expect(statusCommand({ flags: { board: "bridge" } }, { HOME: emu.dir })).rejects.toThrow(/assignee: this command reads one seat's state/);
  });

  it("row 11: a throwing run:closed listener and failing parked.json writes: one report per run, nothing unhandled", async () => {
    emu = await Emu.create();
    await emu.createTask("limited once", { assignee: SEAT, body: "MODE:pool" });
    const config = bridgeConfig(emu, {
      base: {
        seat: { name: SEAT, onLimit: "wait", limitMarginSeconds: 0 },
        agent: { kind: "command", command: [process.execPath, AGENT], killGraceSeconds: 1, passEnv: ["FIXTURE_LIMITED", "FIXTURE_RESET_MS", "FIXTURE_SEAT"] },
      },
    });
    // parked.json cannot be written: a directory stands where the file goes
    mkdirSync(join(config.stateDir, "parked.json"), { recursive: true });
    chmodSync(config.stateDir, 0o700);
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    cleanups.push(() => process.off("unhandledRejection", onUnhandled));
    const built = await build(config, { ...process.env, FIXTURE_LIMITED: "1", FIXTURE_RESET_MS: "1500", FIXTURE_SEAT: SEAT }, silentLogger);
    const daemon = new Daemon({ ...built, once: false });
    cleanups.push(() => daemon.stop());
    daemon.on("run:closed", () => {
      throw new Error("a listener that throws");
    });
    const reports: RunReport[] = [];
    const two = new Promise<void>((resolve) =>
      daemon.on("run:closed", (r) => {
        reports.push(r);
        if (reports.length === 2) resolve();
      }),
    );
    await daemon.start();
    await two;
    await daemon.stop();
    expect(reports.map((r) => r.decision)).toEqual(["block", "complete"]);
    expect(reports.map((r) => r.close)).toEqual(["applied", "applied"]);
    expect(reports[0]?.handedOff).toBe("wait");
    expect(unhandled).toEqual([]);
  });
});
