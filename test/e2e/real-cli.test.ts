// The real Claude Code and Codex CLIs (the pinned devDependencies: agents/tested.ts), driven end to end by the
// bridge against scripted model APIs on 127.0.0.1, with the emulator as the board. HKB_CLAUDE_BIN / HKB_CODEX_BIN
// run the same cases on other installs (npm run test:newest-agents).
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/jail/policy.js";
import { hasAllFields } from "../../src/result/template.js";
import { type Bridge, runBridge, SEAT } from "../helpers/bridge.js";
import { Emu, type ShowDoc } from "../helpers/emulator.js";
import { AnthropicMock, ResponsesMock, type ScriptedTurn, toolNames } from "../helpers/model-mocks.js";
import { LASTING_TOOLS } from "../../src/agents/claude-code/headless.js";
import { CLAUDE, CODEX } from "../helpers/agent-clis.js";

let emu: Emu;
let mock: AnthropicMock | ResponsesMock | undefined;
afterEach(async () => {
  emu?.cleanup();
  await mock?.close();
  mock = undefined;
});

const GOOD_RESULT = { ok: true, status: "ok", items: 1, metrics: { created: 1 }, note: "wrote the file", artifacts: [], error: null };
const BAD_BLOCK = { cause: "spec undecided", what_happened: "The spec has two answers.", options: ["A", "B"], recommendation: "A" };
const GOOD_BLOCK = { ...BAD_BLOCK, next_action: "Pick A or B in a comment, then unblock." };
const COMPLETE: ScriptedTurn[] = [
  { blocks: [{ text: "Starting." }, { tool: "mcp__task__kanban_heartbeat", input: { note: "starting work" } }] },
  { blocks: [{ tool: "mcp__task__kanban_complete", input: { summary: "Did the task.", result: GOOD_RESULT } }] },
  { blocks: [{ text: "Done." }] },
];
const BLOCK: ScriptedTurn[] = [
  { blocks: [{ tool: "mcp__task__kanban_block", input: BAD_BLOCK }] },
  { blocks: [{ tool: "mcp__task__kanban_block", input: GOOD_BLOCK }] },
  { blocks: [{ text: "Blocked." }] },
];

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;

/** In a jail (network: proxy), the model API was reached through the run's proxy, with the seat's real key. */
function throughProxy(doc: ShowDoc, header: string, key: string): void {
  if (!BWRAP) return;
  const egress = (doc.runs.at(-1)?.metadata as { bridge?: { egress?: { allowed: { host: string; bytes: number }[] } } } | undefined)?.bridge?.egress;
  expect(egress?.allowed.find((a) => a.host === "127.0.0.1")?.bytes ?? 0).toBeGreaterThan(0);
  expect(mock?.headers.length).toBeGreaterThan(0);
  for (const h of mock?.headers ?? []) expect(String(h[header])).toContain(key);
}

const reasonOf = (doc: ShowDoc) => String(doc.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");
/** The reclaim reason and the seat's comment of a usage-limit hand-back. */
const handBack = (doc: ShowDoc) =>
  `${String(doc.events.findLast((e) => e.kind === "reclaimed")?.payload?.reason ?? "")}\n${doc.comments.map((c) => c.body).join("\n")}`;

async function claude(turns: ScriptedTurn[], o: { env?: Record<string, string>; maxTurns?: number } = {}): Promise<{ doc: ShowDoc; b: Bridge }> {
  emu = await Emu.create();
  mock = await new AnthropicMock(turns).start();
  const id = await emu.createTask("real claude", { assignee: SEAT, body: "Do the task." });
  const b = await runBridge(emu, {
    base: {
      agent: {
        kind: "claude-code",
        command: [CLAUDE],
        maxTurns: o.maxTurns ?? 10,
        configDir: join(emu.dir, "claude"),
        killGraceSeconds: 2,
        env: { ANTHROPIC_BASE_URL: mock.baseUrl, CLAUDE_CODE_MAX_RETRIES: "2", ...(o.env ?? { ANTHROPIC_API_KEY: "sk-ant-mock" }) },
      },
    },
  });
  await b.daemon.done;
  return { doc: await emu.show(id), b };
}

async function codex(turns: ScriptedTurn[]): Promise<{ doc: ShowDoc; b: Bridge }> {
  emu = await Emu.create();
  mock = await new ResponsesMock(turns).start();
  const id = await emu.createTask("real codex", { assignee: SEAT, body: "Do the task." });
  const b = await runBridge(emu, {
    base: {
      agent: {
        kind: "codex",
        command: [CODEX],
        model: "mock-model",
        home: join(emu.dir, "codex"),
        killGraceSeconds: 2,
        config: [
          'model_provider="mock"', // One retry, not Codex's default of four with backoff: the 401 path stays, without ~10 s of waits.
          `model_providers.mock={name="mock",base_url="${mock.baseUrl}",wire_api="responses",env_key="LLM_KEY",request_max_retries=1,stream_max_retries=1}`,
        ],
        env: { LLM_KEY: "sk-mock" },
      },
    },
  });
  await b.daemon.done;
  return { doc: await emu.show(id), b };
}

describe("real Claude Code CLI", () => {
  it("heartbeats and completes through the MCP task tools", async () => {
    const { doc } = await claude(COMPLETE);
    expect(doc.task.status).toBe("done");
    expect(doc.runs.at(-1)?.summary).toBe("Did the task.");
    expect(doc.runs.at(-1)?.metadata).toMatchObject({ ok: true, items: 1, bridge: { agent: "claude-code", exit: { code: 0 } } });
    expect(doc.events.filter((e) => e.kind === "heartbeat").map((e) => e.payload?.note)).toContain("starting work");
    throughProxy(doc, "x-api-key", "sk-ant-mock");
    // the close tools were in the model's hands from its first request; nothing that outlives the run was offered
    const first = toolNames(mock?.mainBodies[0] ?? {});
    for (const t of ["kanban_complete", "kanban_block", "kanban_heartbeat"]) expect(first).toContain(`mcp__task__${t}`);
    for (const t of [...LASTING_TOOLS, "ToolSearch"]) expect(first).not.toContain(t);
    expect(mock?.notOffered).toEqual([]);
  });

  it("blocks with a bad then a good template; the bad one came back naming the field", async () => {
    const { doc } = await claude(BLOCK);
    expect(doc.task.status).toBe("blocked");
    expect(hasAllFields(reasonOf(doc))).toBe(true);
    expect(JSON.stringify(mock?.bodies[1])).toMatch(/next_action is required/);
  });

  it("a 401 stops early as auth missing and pauses the seat", async () => {
    const unauthorized = { status: 401, body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } } };
    const { doc, b } = await claude(Array.from({ length: 12 }, () => unauthorized));
    expect(reasonOf(doc)).toMatch(/^cause: auth missing$/m);
    expect(b.daemon.status().seat.paused).toBe(true);
  });

  it("a subscription limit hands the task back to the lane, naming the reset time (seat.onLimit: handoff)", async () => {
    const reset = Math.floor(Date.now() / 1000) + 3 * 3600;
    const limited = {
      status: 429,
      body: { type: "error", error: { type: "rate_limit_error", message: "rate limited" } },
      headers: {
        "anthropic-ratelimit-unified-status": "rejected",
        "anthropic-ratelimit-unified-reset": String(reset),
        "anthropic-ratelimit-unified-representative-claim": "five_hour",
        "anthropic-ratelimit-unified-5h-status": "rejected",
        "anthropic-ratelimit-unified-5h-reset": String(reset),
      },
    };
    const { doc } = await claude(
      Array.from({ length: 4 }, () => limited),
      { env: { CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-mock" } },
    );
    expect(handBack(doc)).toContain(new Date(reset * 1000).toISOString());
    expect(doc.task.status).toBe("ready");
  });

  it("a silent return (no close tool) blocks as a protocol violation, quoting the agent's last message, not its stream", async () => {
    const { doc } = await claude([{ blocks: [{ text: "I looked at the repository and everything seems fine to me." }] }]);
    expect(doc.task.status).toBe("blocked");
    const reason = reasonOf(doc);
    expect(reason).toMatch(/silent return/);
    expect(reason).toContain('The agent\'s last message: "I looked at the repository and everything seems fine to me."');
    expect(reason).not.toMatch(/modelUsage|"type":"result"/);
  });

  it("UTF-8 round-trips: a summary and a block in several scripts and an emoji reach the board as written", async () => {
    const summary = "完了しました — Überprüft ✅ Ελληνικά, עברית, 🧪 e\u0301";
    const done = await claude([
      { blocks: [{ tool: "mcp__task__kanban_complete", input: { summary, result: { ...GOOD_RESULT, note: "注記 📝" } } }] },
      { blocks: [{ text: "終わり" }] },
    ]);
    expect(done.doc.task.status).toBe("done");
    expect(done.doc.runs.at(-1)?.summary).toBe(summary);
    expect(done.doc.runs.at(-1)?.metadata).toMatchObject({ note: "注記 📝" });
    await mock?.close();
    emu.cleanup();
    const what = "仕様が二通りに読める: «A» oder «B» 🤔";
    const blocked = await claude([
      { blocks: [{ tool: "mcp__task__kanban_block", input: { ...GOOD_BLOCK, what_happened: what } }] },
      { blocks: [{ text: "止めました" }] },
    ]);
    expect(blocked.doc.task.status).toBe("blocked");
    expect(reasonOf(blocked.doc)).toContain(what);
  });

  it("a max-turns stop blocks for a human", async () => {
    const { doc } = await claude(
      [
        { blocks: [{ tool: "mcp__task__kanban_heartbeat", input: { note: "one" } }] },
        { blocks: [{ tool: "mcp__task__kanban_heartbeat", input: { note: "two" } }] },
      ],
      { maxTurns: 1 },
    );
    expect(reasonOf(doc)).toMatch(/^cause: human decision needed$/m);
    expect(reasonOf(doc)).toMatch(/ran out of turns/);
  });
});

describe("real Codex CLI", () => {
  it("heartbeats and completes through the MCP task tools", async () => {
    const { doc } = await codex(COMPLETE);
    expect(doc.task.status).toBe("done");
    expect(doc.runs.at(-1)?.metadata).toMatchObject({ ok: true, items: 1, bridge: { agent: "codex", model: "mock-model" } });
    expect(doc.events.filter((e) => e.kind === "heartbeat").map((e) => e.payload?.note)).toContain("starting work");
    throughProxy(doc, "authorization", "Bearer sk-mock");
  });

  it("blocks with a bad then a good template", async () => {
    const { doc } = await codex(BLOCK);
    expect(doc.task.status).toBe("blocked");
    expect(hasAllFields(reasonOf(doc))).toBe(true);
    expect(JSON.stringify(mock?.bodies[1])).toMatch(/next_action is required/);
  });

  it("a 401 ends as auth missing", async () => {
    const unauthorized = { status: 401, body: { error: { message: "Incorrect API key provided: sk-mock.", type: "invalid_request_error" } } };
    // every answer a 401, as a bad key gets: the run's, and the seat's own check of it (agents/probe.ts)
    const { doc } = await codex(Array.from({ length: 24 }, () => unauthorized));
    expect(reasonOf(doc)).toMatch(/^cause: auth missing$/m);
  });

  it("a usage limit hands the task back to the lane, naming the reset time", async () => {
    const resetsAt = Math.floor(Date.now() / 1000) + 7200;
    const limited = {
      status: 429,
      body: { error: { type: "usage_limit_reached", message: "usage limit", plan_type: "plus", resets_at: resetsAt, resets_in_seconds: 7200 } },
    };
    const { doc } = await codex(Array.from({ length: 4 }, () => limited));
    // Codex names the reset to the minute.
    expect(handBack(doc)).toMatch(/until 20\d\d-\d\d-\d\dT\d\d:\d\d/);
    expect(Math.abs(Date.parse(/until (\S+?)[.:]? /.exec(handBack(doc))?.[1] ?? "") - resetsAt * 1000)).toBeLessThan(120_000);
    expect(doc.task.status).toBe("ready");
  });
});

describe("pre-flight", () => {
  it("a seat whose Claude is not logged in claims nothing", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("never claimed", { assignee: SEAT, body: "x" });
    const b = await runBridge(emu, { base: { agent: { kind: "claude-code", command: [CLAUDE], configDir: join(emu.dir, "claude-empty") } } });
    await b.daemon.done;
    expect((await emu.show(id)).task.status).toBe("ready");
    expect(b.daemon.status().seat.reason).toMatch(/auth status: .*"loggedIn": ?false/);
  });
});
