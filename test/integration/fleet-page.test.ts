// The fleet page an operator reads at a glance, in headless Chromium (Debian's chromium; skipped where it
// is not installed unless HKB_REQUIRE_BROWSER is set, as CI does): four real seats under one root — one
// working (its last progress note), one paused by a usage limit (until when, in this server's time zone
// and from now; its 24-hour strip), one whose agent is not logged in (the error readable, the fix
// copyable), and a Codex seat (tokens, but "cost unknown": Codex reports no cost). Each cell is checked,
// the 24-hour pictures (the strip of outcomes, the run-time distribution, a level crossed) among them;
// the screenshot goes to test-artifacts/fleet-page.png (and, with HKB_SCREENSHOT_TO_DOCS=1, to
// docs/fleet.png, the README's picture).
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { HttpServer } from "../../src/observe/http.js";
import { fleetPage } from "../../src/observe/fleet-html.js";
import { Metrics } from "../../src/observe/metrics.js";
import { type Bridge, AGENT, runBridge } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { ResponsesMock } from "../helpers/model-mocks.js";
import { CODEX } from "../helpers/agent-clis.js";

const CHROMIUM = "/usr/bin/chromium";
let emu: Emu | undefined;
let bridges: Bridge[] = [];
let http: HttpServer | undefined;
let mock: ResponsesMock | undefined;
const tz = process.env.TZ;
beforeAll(() => {
  // The page shows times in the server's zone: a zone that is not UTC proves it (CET in December).
  process.env.TZ = "Europe/Berlin";
});
afterAll(() => {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
});
afterEach(async () => {
  await http?.close();
  await Promise.all(bridges.map((b) => b.daemon.kill()));
  bridges = [];
  await mock?.close();
  emu?.cleanup();
});

const wait = async (ok: () => Promise<boolean> | boolean, what: string, ms = 60_000, debug?: () => unknown) => {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error(`gave up waiting: ${what} (${JSON.stringify(debug?.())})`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

const statusOf = (dir: string) => {
  try {
    return JSON.parse(readFileSync(join(dir, "status.json"), "utf8")) as {
      seat: { state: string; pausedUntil: string | null };
      usage: { today: { runs: number }; last24h?: { done: number[]; blocked: number[] } };
      runs: { lastNote: string | null }[];
      lastErrors: { what: string }[];
    };
  } catch {
    return null;
  }
};

const COMPLETE = [
  { blocks: [{ text: "Starting." }, { tool: "mcp__task__kanban_heartbeat", input: { note: "starting work" } }] },
  {
    blocks: [
      {
        tool: "mcp__task__kanban_complete",
        input: { summary: "Did it.", result: { ok: true, status: "ok", items: 1, metrics: {}, note: "done", artifacts: [], error: null } },
      },
    ],
  },
  { blocks: [{ text: "Done." }] },
];

describe.skipIf(!existsSync(CHROMIUM) && !process.env.HKB_REQUIRE_BROWSER)("the fleet page, at a glance", () => {
  it("a working, a paused, a logged-out and a Codex seat: each cell says what the operator needs", async () => {
    emu = await Emu.create();
    const e = emu;
    const root = join(e.dir, "seats");
    mock = await new ResponsesMock(COMPLETE).start();
    const seat = async (lane: string, agent: Record<string, unknown>, env: Record<string, string> = {}, extra: Record<string, unknown> = {}) => {
      const b = await runBridge(e, {
        seat: lane,
        once: false,
        env,
        base: { seat: { name: `ws1/${lane}` }, stateDir: join(root, lane), discovery: { watch: false, sweepSeconds: 1 }, agent, ...extra },
      });
      bridges.push(b);
      return join(root, lane);
    };
    const working = await e.createTask("the working one", { assignee: "claude-work", body: "MODE:hang" });
    // worked in this order (priority first): one done, one blocked, then the usage limit that pauses the seat
    for (const [mode, priority] of [
      ["complete", 3],
      ["block", 2],
      ["limit", 1],
    ] as const)
      await e.createTask(`paused seat: ${mode}`, { assignee: "claude-pool", body: `MODE:${mode}`, priority });
    await e.createTask("for codex", { assignee: "codex-1", body: "Do it." });
    const fixture = { kind: "command", command: [process.execPath, AGENT], killGraceSeconds: 1 };
    const fakeClaude = join(e.dir, "claude");
    // what the real `claude auth status` prints when a seat is not logged in (and a CA notice before it)
    writeFileSync(
      fakeClaude,
      '#!/bin/sh\necho "Additional CA cert(s): /etc/ssl/certs/ca-certificates.crt" >&2\necho \'{"loggedIn": false, "authMethod": "none", "apiProvider": "firstParty"}\'; exit 1\n',
    );
    chmodSync(fakeClaude, 0o755);
    const dirs = {
      work: await seat("claude-work", fixture),
      // (the seat's own check confirms the limit — agent.check exit 75 — so the agent's reset an hour out stands)
      // (its levels judged from one run: its day crosses the failure rate, and the page says so)
      pool: await seat(
        "claude-pool",
        { ...fixture, passEnv: ["FIXTURE_RESET_MS"], check: ["sh", "-c", "exit 75"] },
        { FIXTURE_RESET_MS: "3600000" },
        { serviceLevels: { minRuns: 1 } },
      ),
      auth: await seat("claude-auth", { kind: "claude-code", command: [fakeClaude] }),
      codex: await seat("codex-1", {
        kind: "codex",
        command: [CODEX],
        model: "mock-model",
        killGraceSeconds: 2,
        config: ['model_provider="mock"', `model_providers.mock={name="mock",base_url="${mock.baseUrl}",wire_api="responses"}`],
        env: { OPENAI_API_KEY: "sk-mock" },
      }),
    };
    await wait(() => statusOf(dirs.work)?.runs[0]?.lastNote === "still going", "the working seat's note");
    await wait(
      () => statusOf(dirs.pool)?.seat.state === "paused" && statusOf(dirs.pool)?.usage.today.runs === 3,
      "the pool seat paused after three runs",
      60_000,
      () => statusOf(dirs.pool),
    );
    await wait(() => statusOf(dirs.auth)?.seat.state === "auth", "the logged-out seat");
    await wait(() => statusOf(dirs.codex)?.usage.today.runs === 1, "the codex seat's run");

    http = new HttpServer({ healthy: () => true, status: () => ({}) }, new Metrics(), {
      page: fleetPage({ stateDir: dirs.work, fleet: { root, urls: [] } }),
    });
    const port = await http.listen(0);
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    try {
      const page = await browser.newPage({ viewport: { width: 1680, height: 900 } });
      await page.goto(`http://127.0.0.1:${port}/`, { waitUntil: "load" });
      const row = (lane: string) => page.locator(`#fleet tbody tr[data-seat="ws1/${lane}"]`);
      const cell = (lane: string, cls: string) => row(lane).locator(`td.${cls}`);
      expect(await page.locator("#fleet tbody tr").count()).toBe(4);
      expect(await page.textContent("#summary")).toMatch(/^4 seat\(s\), 1 working · .*\(times: CET, this server's time zone\)/);

      // working: the run, and its last progress note
      expect(await row("claude-work").getAttribute("data-state")).toBe("working");
      expect(await cell("claude-work", "runs").locator(".task").textContent()).toBe(`${e.slug}/${working}`);
      expect(await cell("claude-work", "runs").locator(".note").textContent()).toBe("still going");
      // the source is shortened to the seat's name under the root; the whole path on hover
      expect(await cell("claude-work", "seat").locator(".src").textContent()).toBe("claude-work");
      expect(await cell("claude-work", "seat").locator(".src").getAttribute("title")).toBe(dirs.work);

      // paused: until when, in local time and from now; the reason; the strip of the last 24 h
      const until = statusOf(dirs.pool)?.seat.pausedUntil ?? "";
      const local = new Date(Date.parse(until) + 3_600_000).toISOString().slice(11, 16); // CET = UTC+1 in December
      const state = (await cell("claude-pool", "state").textContent()) ?? "";
      // another local day than the page's now (the last hour before midnight) is shown with its date: "Sun 6 Dec 00:59"
      const date = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", weekday: "short", day: "numeric", month: "short" }).format(
        Date.parse(until) + 3_600_000,
      );
      expect(state).toMatch(new RegExp(`^paused until (${date.replace(",", "")} )?${local} \\(in 1 h \\d+ min\\)`));
      expect(await cell("claude-pool", "state").locator("time").getAttribute("datetime")).toBe(until);
      expect(state).toContain("usage limit");
      // its last 24 h: a strip of outcomes (done, the block's cause, the hand-back at the limit), a run-time
      // distribution, and the level its day crossed — inline SVG, drawn (the strip's bars have a size on screen)
      const hours = cell("claude-pool", "hours");
      const strip = hours.locator("svg.strip");
      expect(await strip.locator("g.hour").count()).toBe(24);
      const totals = await strip.locator("g.hour").evaluateAll((gs) => gs.map((g) => Number(g.getAttribute("data-total"))));
      expect(totals.slice(0, 23).every((n) => n === 0)).toBe(true);
      expect(totals[23]).toBe(3);
      const drawn = await strip.locator("g.hour").last().locator("rect[data-outcome]");
      expect(await drawn.evaluateAll((rs) => rs.map((r) => r.getAttribute("data-outcome")))).toEqual(["done", "spec undecided", "given back"]);
      for (const box of await Promise.all((await drawn.all()).map((r) => r.boundingBox()))) expect(box?.height ?? 0).toBeGreaterThan(2);
      expect(await strip.locator("g.hour").last().locator("title").textContent()).toMatch(/^\d\d:00–\d\d:00: 1 done, 1 spec undecided, 1 given back$/);
      const words = async (l: ReturnType<typeof cell>) => ((await l.textContent()) ?? "").replace(/\s+/g, " ").trim();
      expect(await words(hours.locator(".legend"))).toBe("1 done 1 spec undecided 1 given back");
      expect(await hours.locator("svg.runtimes g.bucket").count()).toBe(6);
      expect(await hours.locator(".pq").textContent()).toMatch(/^run time p50 \d+s · p95 \d+s \(3 runs\)$/);
      expect(await hours.locator(".level").textContent()).toBe("! failure rate 50.0 % ≥ 5.0 % (1 of 2 closed runs; serviceLevels.failureRate)");

      // logged out: the error readable (wrapped, the whole text one click away), the fix whole and copyable
      expect(await row("claude-auth").getAttribute("data-state")).toBe("auth");
      expect(await cell("claude-auth", "state").textContent()).toMatch(/^auth: needs an operator/);
      const fix = cell("claude-auth", "state").locator("code.fix");
      expect(await fix.textContent()).toBe(
        `log this seat in — a Claude subscription (a browser sign-in): CLAUDE_CONFIG_DIR=${join(dirs.auth, "claude")} ${fakeClaude} auth login; or a subscription on a machine without a browser: ${fakeClaude} setup-token (then CLAUDE_CODE_OAUTH_TOKEN=<the token> in the seat's environment, and CLAUDE_CODE_OAUTH_TOKEN in agent.passEnv); or an Anthropic API key: ANTHROPIC_API_KEY=<key> in the seat's environment, and ANTHROPIC_API_KEY in agent.passEnv`,
      );
      expect(
        await fix.evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { userSelect: string } }).getComputedStyle(el).userSelect),
      ).toBe("all");
      const lastError = statusOf(dirs.auth)?.lastErrors.at(-1)?.what ?? "";
      expect(lastError.length).toBeGreaterThan(160);
      const err = cell("claude-auth", "err");
      expect(await err.locator("details .full").textContent()).toBe(lastError);
      expect(((await err.locator("summary").textContent()) ?? "").length).toBeLessThan(lastError.length);
      const box = await err.boundingBox();
      expect(box?.width ?? 0).toBeGreaterThanOrEqual(280);
      await err.locator("summary").click();
      expect(await err.locator("details").getAttribute("open")).not.toBeNull();

      // Codex: tokens counted, the dollars unknown (Codex reports no cost), never $0
      expect(await cell("codex-1", "agent").textContent()).toBe("codex");
      const today = (await cell("codex-1", "today").textContent()) ?? "";
      expect(today).toMatch(/^\d+ tok · cost unknown$/);
      expect(today).not.toContain("$0");
      expect(((await cell("codex-1", "hours").locator(".legend").textContent()) ?? "").trim()).toBe("1 done");
      expect(await cell("codex-1", "hours").locator(".level").count()).toBe(0);

      // the task's title beside its id
      expect(await cell("claude-work", "runs").locator(".title").textContent()).toBe("the working one");
      // at 1400 px the problems are on screen: each seat's outbox and last error end inside the window
      await page.setViewportSize({ width: 1400, height: 900 });
      for (const lane of ["claude-work", "claude-pool", "claude-auth", "codex-1"])
        for (const cls of ["outbox", "err"]) {
          // (the page reloads itself every 5 s: a cell measured mid-reload has no box yet, and is measured again)
          const right = async () => {
            const b = await cell(lane, cls).boundingBox();
            return b ? b.x + b.width : Number.POSITIVE_INFINITY;
          };
          await expect.poll(right, { message: `${lane} ${cls}`, timeout: 20_000 }).toBeLessThanOrEqual(1400);
        }
      await page.setViewportSize({ width: 1680, height: 900 });

      mkdirSync("test-artifacts", { recursive: true });
      await page.screenshot({ path: "test-artifacts/fleet-page.png", fullPage: true });
      if (process.env.HKB_SCREENSHOT_TO_DOCS) copyFileSync("test-artifacts/fleet-page.png", "docs/fleet.png");
    } finally {
      await browser.close();
    }
  }, 120_000);
});
