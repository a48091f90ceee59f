// The fleet view: three local seats (state dirs under one root) and one remote seat (its /status URL)
// while they work, plus a seat whose daemon is gone; the same fleet as the HTTP server's `/` page,
// rendered in headless Chromium (Debian's chromium; skipped where it is not installed unless
// HKB_REQUIRE_BROWSER is set, as CI does).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FleetSeat, collectFleet } from "../../src/observe/fleet.js";
import { fleetPage } from "../../src/observe/fleet-html.js";
import { HttpServer } from "../../src/observe/http.js";
import { Metrics } from "../../src/observe/metrics.js";
import { hostileSeat } from "../helpers/hostile-seat.js";
import { fleetCommand } from "../../src/cli/fleet.js";
import { type Bridge, runBridge } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";

const CHROMIUM = "/usr/bin/chromium";
let emu: Emu;
let bridges: Bridge[] = [];
let http: HttpServer | undefined;
afterEach(async () => {
  await http?.close();
  await Promise.all(bridges.map((b) => b.daemon.kill()));
  bridges = [];
  emu?.cleanup();
});

/** Polls until the fleet satisfies `ok` (daemons write their status every 5 s); the last read when it never does. */
async function fleetUntil(read: () => Promise<FleetSeat[]>, ok: (s: FleetSeat[]) => boolean, ms = 20_000): Promise<FleetSeat[]> {
  const until = Date.now() + ms;
  let seats = await read();
  while (!ok(seats) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    seats = await read();
  }
  return seats;
}

async function fleetOf4() {
  emu = await Emu.create();
  const root = join(emu.dir, "seats");
  const tasks: Record<string, string> = {};
  const seat = async (lane: string, o: { stateDir: string; http?: boolean; work: boolean }) => {
    if (o.work) tasks[lane] = await emu.createTask(`work of ${lane}`, { assignee: lane, body: "MODE:hang" });
    const b = await runBridge(emu, {
      seat: lane,
      once: false,
      base: {
        seat: { name: `host/${lane}` },
        stateDir: o.stateDir,
        discovery: { watch: false, sweepSeconds: 3600 },
        ...(o.http ? { http: { port: 0 }, fleet: { root } } : {}),
      },
    });
    bridges.push(b);
    return b;
  };
  await seat("lane-a", { stateDir: join(root, "a"), work: true });
  await seat("lane-b", { stateDir: join(root, "b"), work: true });
  await seat("lane-c", { stateDir: join(root, "c"), work: false });
  const remote = await seat("lane-d", { stateDir: join(emu.dir, "elsewhere", "d"), http: true, work: true });
  // a seat whose daemon is gone: its last status names a pid that is not running
  mkdirSync(join(root, "gone"), { recursive: true });
  writeFileSync(
    join(root, "gone", "status.json"),
    JSON.stringify({ at: new Date().toISOString(), pid: 2 ** 22 + 7, seat: { name: "host/gone", assignee: "x" }, runs: [] }),
  );
  const metrics = remote.built.metrics;
  if (!metrics) throw new Error("the remote seat has no metrics (http.port unset)");
  http = new HttpServer(remote.daemon, metrics, { page: fleetPage(remote.config) });
  const port = await http.listen(0);
  return { root, tasks, url: `http://127.0.0.1:${port}` };
}

const working = (seats: FleetSeat[], n: number) => seats.filter((s) => s.state === "working" && s.runs.length > 0).length === n;

describe("fleet", () => {
  it("shows three local seats, a remote one and a gone one, while they work", async () => {
    const { root, tasks, url } = await fleetOf4();
    const seats = await fleetUntil(
      () => collectFleet({ root, urls: [url], now: Date.now() }),
      (s) => working(s, 3),
    );
    const by = Object.fromEntries(seats.map((s) => [s.seat, s]));
    expect(Object.keys(by).sort()).toEqual(["host/gone", "host/lane-a", "host/lane-b", "host/lane-c", "host/lane-d"]);
    for (const lane of ["lane-a", "lane-b", "lane-d"]) {
      const s = by[`host/${lane}`];
      expect(s).toMatchObject({ state: "working", agent: "command", assignee: lane, outboxBacklog: 0 });
      expect(s?.runs.map((r) => r.task)).toEqual([`${emu.slug}/${tasks[lane]}`]);
      expect(s?.runs[0]?.deadline).toMatch(/^\d{4}-/);
      expect(s?.today).toMatchObject({ runs: 0 });
    }
    expect(by["host/lane-c"]).toMatchObject({ state: "idle", runs: [] });
    expect(by["host/lane-d"]?.source).toBe(url);
    expect(by["host/gone"]?.state).toBe("not running");

    let text = "";
    const flags = { board: emu.slug, assignee: "lane-a", "state-dir": join(root, "a") };
    expect(await fleetCommand({ flags, urls: [url] }, {}, (s) => (text += s))).toBe(0);
    expect(text).toMatch(/^5 seat\(s\), 3 working/);
    expect(text).toMatch(/host\/lane-c\s+command\s+idle/);
    expect(text).toContain(tasks["lane-d"]);
    const dead = await collectFleet({ root: undefined, urls: ["http://127.0.0.1:9/status"], now: Date.now() });
    expect(dead[0]).toMatchObject({ state: "unreachable", lastError: expect.stringContaining("127.0.0.1:9") });
  });

  it.skipIf(!existsSync(CHROMIUM) && !process.env.HKB_REQUIRE_BROWSER)("the page at / renders the fleet in headless Chromium", async () => {
    const { url, tasks } = await fleetOf4();
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    try {
      const page = await browser.newPage();
      const rows = async () => {
        await page.goto(url, { waitUntil: "domcontentloaded" });
        return page.$$eval("#fleet tbody tr", (trs) =>
          trs.map((tr) => ({ seat: tr.getAttribute("data-seat"), state: tr.getAttribute("data-state"), runs: tr.querySelector(".runs")?.textContent ?? "" })),
        );
      };
      let seen = await rows();
      for (let i = 0; i < 80 && seen.filter((r) => r.state === "working").length < 2; i++) {
        await new Promise((r) => setTimeout(r, 250));
        seen = await rows();
      }
      expect(seen.map((r) => r.seat).sort()).toEqual(["host/gone", "host/lane-a", "host/lane-b", "host/lane-c"]);
      expect(seen.find((r) => r.seat === "host/lane-a")).toMatchObject({ state: "working", runs: expect.stringContaining(tasks["lane-a"] ?? "?") });
      expect(seen.find((r) => r.seat === "host/gone")?.state).toBe("not running");
      expect(await page.textContent("#summary")).toMatch(/^4 seat\(s\), 2 working/);
      mkdirSync("test-artifacts", { recursive: true });
      await page.screenshot({ path: "test-artifacts/fleet.png", fullPage: true });
      expect(existsSync("test-artifacts/fleet.png")).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it.skipIf(!existsSync(CHROMIUM) && !process.env.HKB_REQUIRE_BROWSER)(
    "a hostile remote seat on the page: no dialog, no script, the row says unreadable",
    async () => {
      const hostile = await Promise.all([hostileSeat("xss"), hostileSeat("wrong-type"), hostileSeat("not-json")]);
      const server = new HttpServer({ healthy: () => true, status: () => ({}) }, new Metrics(), {
        page: fleetPage({ stateDir: "/nonexistent/seat", fleet: { urls: hostile.map((h) => h.url) } }),
      });
      http = server;
      const port = await server.listen(0);
      const { chromium } = await import("playwright-core");
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
      try {
        const page = await browser.newPage();
        const dialogs: string[] = [];
        page.on("dialog", (d) => {
          dialogs.push(d.message());
          void d.dismiss();
        });
        await page.goto(`http://127.0.0.1:${port}/`, { waitUntil: "load" });
        const rows = await page.$$eval("#fleet tbody tr", (trs) => trs.map((tr) => tr.getAttribute("data-state")));
        expect(rows).toEqual(["unreadable", "unreadable", "unreadable"]);
        expect(await page.$$eval("script", (s) => s.length)).toBe(0);
        expect(await page.$$eval("#fleet td.err", (tds) => tds.map((td) => td.textContent ?? "").join(" "))).toMatch(/outbox\.backlog/);
        expect(dialogs).toEqual([]);
      } finally {
        await browser.close();
        await Promise.all(hostile.map((h) => h.close()));
      }
    },
  );
});
