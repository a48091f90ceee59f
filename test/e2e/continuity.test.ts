// Continuity with the real Claude Code and Codex CLIs (pinned dev deps) and the local-LLM loop, against
// scripted model APIs on 127.0.0.1: a run cut after part of the work (deadline, usage limit, a bridge
// SIGKILL) is resumed on the next claim — the scripted server sees the first run's messages in the
// FIRST request of the second run — and completes; a session that cannot be resumed starts fresh.
import { rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { killGroup, runProcess } from "../../src/process/runner.js";
import { type Bridge, runBridge, SEAT } from "../helpers/bridge.js";
import { CLI_BIN, Emu, type ShowDoc } from "../helpers/emulator.js";
import { AnthropicMock, ResponsesMock, type ScriptedTurn } from "../helpers/model-mocks.js";
import { OpenAiMock, call, finish } from "../helpers/openai-mock.js";

const CLAUDE = resolve("node_modules/.bin/claude");
const CODEX = resolve("node_modules/.bin/codex");

let emu: Emu;
let mocks: { close(): Promise<void> }[] = [];
afterEach(async () => {
  emu?.cleanup();
  for (const m of mocks) await m.close();
  mocks = [];
});

const GOOD = { ok: true, status: "ok", items: 1, metrics: { created: 1 }, note: "done", artifacts: [], error: null };
/** Run 1: one step of real work, then the model never answers (the run is cut while it waits). */
const PART_ONE: ScriptedTurn[] = [
  { blocks: [{ text: "Step one: reading the code." }, { tool: "mcp__task__kanban_heartbeat", input: { note: "step one done" } }] },
  { hang: true },
];
/** Run 2: finishes. */
const PART_TWO: ScriptedTurn[] = [
  { blocks: [{ tool: "mcp__task__kanban_complete", input: { summary: "Finished after resuming.", result: GOOD } }] },
  { blocks: [{ text: "Done." }] },
];
/** A short claim: run time 20 s, the polite stop 6 s before the deadline (the CLIs take seconds to start). */
const SHORT = { claim: { ttlSeconds: 60, safetySeconds: 40 }, heartbeat: { intervalSeconds: 2 } };

const reasonOf = (doc: ShowDoc) => String(doc.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");

function claudeAgent(mock: AnthropicMock, extra: Record<string, unknown> = {}) {
  return {
    kind: "claude-code",
    command: [CLAUDE],
    maxTurns: 10,
    configDir: join(emu.dir, "claude"),
    killGraceSeconds: 3,
    wrapUpSeconds: 6,
    env: { ANTHROPIC_BASE_URL: mock.baseUrl, CLAUDE_CODE_MAX_RETRIES: "0", ANTHROPIC_API_KEY: "sk-ant-mock", API_TIMEOUT_MS: "600000" },
    ...extra,
  };
}

async function once(base: Record<string, unknown>): Promise<Bridge> {
  const b = await runBridge(emu, { base: { ...SHORT, seat: { limitMarginSeconds: 0 }, ...base } });
  await b.daemon.done;
  return b;
}

/** The text of every message of a request body (Anthropic or Responses shapes). */
const textOf = (body: Record<string, unknown> | undefined) => JSON.stringify(body?.messages ?? body?.input ?? body ?? null);

describe("continuity with the real Claude Code CLI", () => {
  it("cut at its deadline, unblocked, resumed: the second run's first request carries the first run's conversation", async () => {
    emu = await Emu.create();
    const mock = await new AnthropicMock(PART_ONE).start();
    mocks.push(mock);
    const id = await emu.createTask("long job", { assignee: SEAT, body: "Do the long job." });
    await once({ agent: claudeAgent(mock) });
    const cut = await emu.show(id);
    expect(cut.task.status).toBe("blocked");
    const reason = reasonOf(cut);
    expect(reason).toMatch(/did not finish before its deadline/);
    expect(reason).toMatch(/Last progress note: "step one done"|Last progress note: "Step one: reading the code."/);
    const session = /session: (\S+) — unblock to continue; the next run of this seat resumes session \1/.exec(reason)?.[1];
    expect(session).toBeDefined();
    await emu.kanban(["unblock", "--reason", "take your time", id]);
    mock.push(...PART_TWO);
    const before = mock.mainBodies.length;
    await once({ agent: claudeAgent(mock) });
    const done = await emu.show(id);
    expect(done.task.status).toBe("done");
    const first = textOf(mock.mainBodies[before]);
    expect(first).toContain("Step one: reading the code.");
    expect(first).toContain("take your time");
    expect(done.runs.at(-1)?.metadata).toMatchObject({ bridge: { session: { id: session, resumed: true }, agent: "claude-code" } });
  }, 120_000);

  it("cut by a usage limit, resumed after the reset", async () => {
    emu = await Emu.create();
    const reset = Math.floor(Date.now() / 1000) + 2;
    const limited: ScriptedTurn = {
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
    const mock = await new AnthropicMock([PART_ONE[0] as ScriptedTurn, limited, limited, limited]).start();
    mocks.push(mock);
    const id = await emu.createTask("limited job", { assignee: SEAT, body: "Do it." });
    const agent = claudeAgent(mock, { env: { ANTHROPIC_BASE_URL: mock.baseUrl, CLAUDE_CODE_MAX_RETRIES: "0", CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-mock" } });
    await once({ agent });
    const cut = await emu.show(id);
    expect(cut.events.findLast((e) => e.kind === "blocked")?.payload?.kind).toBe("transient");
    expect(reasonOf(cut)).toMatch(/session: \S+ — unblock to continue/);
    await new Promise((r) => setTimeout(r, 2500)); // the seat's pause (reset + 0 margin) is over
    await emu.kanban(["unblock", id]);
    mock.replace(...PART_TWO);
    const before = mock.mainBodies.length;
    await once({ agent });
    expect((await emu.show(id)).task.status).toBe("done");
    expect(textOf(mock.mainBodies[before])).toContain("Step one: reading the code.");
  }, 120_000);

  it("after a bridge SIGKILL (and its agent gone with the host), the restarted seat resumes the session", async () => {
    emu = await Emu.create();
    const mock = await new AnthropicMock(PART_ONE).start();
    mocks.push(mock);
    const id = await emu.createTask("crash job", { assignee: SEAT, body: "Do it." });
    const cfg = join(emu.dir, "seat.yaml");
    const agent = { ...claudeAgent(mock), command: [CLAUDE] };
    writeFileSync(
      cfg,
      JSON.stringify({
        boards: ["bridge"],
        assignee: SEAT,
        hermes: { command: emu.command, home: emu.home },
        agent,
        stateDir: join(emu.dir, "state"),
        discovery: { watch: false },
        claim: { ttlSeconds: 600 },
      }),
    );
    const lines: Record<string, unknown>[] = [];
    let pid = 0;
    let agentPid = 0;
    let sawNote: () => void = () => undefined;
    const noted = new Promise<void>((r) => {
      sawNote = r;
    });
    const first = runProcess({
      argv: [process.execPath, CLI_BIN, "run", "--config", cfg, "--log-format", "json"],
      env: { PATH: process.env.PATH ?? "", HOME: emu.dir },
      onSpawn: (p) => {
        pid = p;
      },
      onStdoutLine: (l) => {
        try {
          lines.push(JSON.parse(l) as Record<string, unknown>);
        } catch {
          return;
        }
        const last = lines.at(-1);
        if (last?.msg === "agent started") agentPid = Number(last.agent_pid);
      },
    });
    // Wait until the first step's heartbeat is on the board, then kill the bridge and its agent.
    const poll = setInterval(async () => {
      const d = await emu.show(id).catch(() => null);
      if (d?.events.some((e) => e.kind === "heartbeat" && e.payload?.note === "step one done")) sawNote();
    }, 500);
    await noted;
    clearInterval(poll);
    process.kill(pid, "SIGKILL");
    killGroup(agentPid, "SIGKILL");
    await first;
    const restart = await runProcess({
      argv: [process.execPath, CLI_BIN, "run", "--once", "--config", cfg, "--log-format", "json"],
      env: { PATH: process.env.PATH ?? "", HOME: emu.dir },
      timeoutMs: 60_000,
    });
    expect(restart.exitCode).toBe(0);
    const cut = await emu.show(id);
    expect(reasonOf(cut)).toMatch(/bridge restarted mid-run.*The agent's session \S+ is kept: unblock to continue/);
    await emu.kanban(["unblock", id]);
    mock.replace(...PART_TWO);
    const before = mock.mainBodies.length;
    const resumed = await runProcess({
      argv: [process.execPath, CLI_BIN, "run", "--once", "--config", cfg, "--log-format", "json"],
      env: { PATH: process.env.PATH ?? "", HOME: emu.dir },
      timeoutMs: 90_000,
    });
    expect(resumed.exitCode).toBe(0);
    expect((await emu.show(id)).task.status).toBe("done");
    expect(textOf(mock.mainBodies[before])).toContain("Step one: reading the code.");
  }, 180_000);

  it("a session that cannot be resumed starts fresh with the earlier summaries, and says so", async () => {
    emu = await Emu.create();
    const mock = await new AnthropicMock(PART_ONE).start();
    mocks.push(mock);
    const id = await emu.createTask("lost session", { assignee: SEAT, body: "Do it." });
    await once({ agent: claudeAgent(mock) });
    rmSync(join(emu.dir, "claude", "projects"), { recursive: true, force: true }); // the seat's sessions are gone
    await emu.kanban(["unblock", id]);
    mock.push(...PART_TWO);
    await once({ agent: claudeAgent(mock) });
    const done = await emu.show(id);
    expect(done.task.status).toBe("done");
    expect(done.comments.map((c) => c.body).join("\n")).toMatch(/could not resume the agent's session \S+ \(No conversation found.*started a fresh session/);
    expect(done.runs.at(-1)?.metadata).toMatchObject({ bridge: { session: { resumed: false } } });
  }, 120_000);
});

describe("continuity with the real Codex CLI", () => {
  it("cut at its deadline, resumed with `codex exec resume <thread>`: the first request carries the first run", async () => {
    emu = await Emu.create();
    const mock = await new ResponsesMock(PART_ONE).start();
    mocks.push(mock);
    const agent = {
      kind: "codex",
      command: [CODEX],
      model: "mock-model",
      home: join(emu.dir, "codex"),
      killGraceSeconds: 3,
      wrapUpSeconds: 6,
      config: [
        'model_provider="mock"',
        `model_providers.mock={name="mock",base_url="${mock.baseUrl}",wire_api="responses",stream_max_retries=0,request_max_retries=0}`,
      ],
      env: { OPENAI_API_KEY: "sk-mock" },
    };
    const id = await emu.createTask("codex job", { assignee: SEAT, body: "Do the job." });
    await once({ agent });
    const cut = await emu.show(id);
    expect(reasonOf(cut)).toMatch(/did not finish before its deadline/);
    const thread = /session: (\S+) —/.exec(reasonOf(cut))?.[1];
    expect(thread).toBeDefined();
    await emu.kanban(["unblock", id]);
    mock.push(...PART_TWO);
    const before = mock.mainBodies.length;
    await once({ agent });
    const done = await emu.show(id);
    expect(done.task.status).toBe("done");
    expect(textOf(mock.mainBodies[before])).toContain("Step one: reading the code.");
    expect(done.runs.at(-1)?.metadata).toMatchObject({ bridge: { session: { id: thread, resumed: true }, tokens: { input: expect.any(Number) } } });
  }, 120_000);
});

describe("continuity of the local-LLM loop", () => {
  it("resumes from its saved history", async () => {
    emu = await Emu.create();
    const good = JSON.stringify({ summary: "Finished after resuming.", result: GOOD });
    const mock = await OpenAiMock.start([{ chunks: [call(0, "c1", "kanban_heartbeat", '{"note":"step one done"}'), finish("tool_calls")] }, { hangAfter: [] }]);
    mocks.push(mock);
    const agent = { kind: "local-llm", baseUrl: mock.baseUrl, model: "mock-coder", wrapUpSeconds: 6, idleTimeoutSeconds: 60 };
    const id = await emu.createTask("local job", { assignee: SEAT, body: "Do it." });
    await once({ agent });
    expect(reasonOf(await emu.show(id))).toMatch(/session: local-\S+ — unblock to continue/);
    await emu.kanban(["unblock", "--reason", "continue please", id]);
    mock.push({ chunks: [call(0, "c2", "kanban_complete", good), finish("tool_calls")] });
    const before = mock.requests.length;
    await once({ agent });
    expect((await emu.show(id)).task.status).toBe("done");
    const first = JSON.stringify(mock.requests[before]?.messages);
    expect(first).toContain("step one done");
    expect(first).toContain("continue please");
  }, 120_000);
});
