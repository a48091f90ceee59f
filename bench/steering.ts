// `npm run bench:steering [-- --repeats 5] [--hermes "<argv>"]`: how fast the board reaches a running
// agent. (1) Note latency: an operator comment posted mid-run → the first model request that carries it,
// for the real Claude Code CLI, the real Codex CLI and the local-LLM loop against scripted model APIs,
// the watch on and heartbeats at the default 120 s. (2) Stop latency: an operator's `reclaim` / `block`
// of a running task at the default TTL and heartbeat → the run closed with its agent gone. Medians of
// `--repeats` (default 5); the board is the emulator, or the real Hermes CLI given by --hermes.
// Results go to bench/results-steering.json (or -real).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { splitCommand } from "../src/config/command.js";
import type { RunReport } from "../src/run/task-run.js";
import { AGENT, runBridge, SEAT } from "../test/helpers/bridge.js";
import { Emu } from "../test/helpers/emulator.js";
import { AnthropicMock, requestText, ResponsesMock } from "../test/helpers/model-mocks.js";
import { call, finish, OpenAiMock } from "../test/helpers/openai-mock.js";
import { median } from "./lib/proc.js";

const argOf = (n: string) => (process.argv.includes(`--${n}`) ? process.argv[process.argv.indexOf(`--${n}`) + 1] : undefined);
const REPEATS = Number(argOf("repeats") ?? 5);
const HERMES = argOf("hermes");
const CLAUDE = resolve("node_modules/.bin/claude");
const CODEX = resolve("node_modules/.bin/codex");
const GOOD = { ok: true, status: "ok", items: 1, metrics: {}, note: "n", artifacts: [], error: null };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, f: () => T | Promise<T>, ms = 60_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await sleep(20);
  }
}

const board = () => (HERMES ? Emu.create("real", { command: splitCommand(HERMES) }) : Emu.create());
const live = { claim: {}, heartbeat: {}, discovery: { watch: true, sweepSeconds: 3600, debounceMs: 20 } };

interface Mock {
  texts(): string[];
  times(): number[];
  close(): Promise<void>;
}

async function noteOnce(kind: "claude-code" | "codex" | "local-llm", token: string): Promise<number> {
  const seen = (b: Record<string, unknown>) => requestText(b).includes(token);
  let mock: Mock;
  let agent: (dir: string) => Record<string, unknown>;
  if (kind === "local-llm") {
    const m = await OpenAiMock.start([
      { chunks: [call(0, "c0", "kanban_heartbeat", '{"note":"starting"}'), finish("tool_calls")] },
      { loop: (n) => [call(0, `w${n}`, "kanban_heartbeat", '{"note":"working"}'), finish("tool_calls")], until: seen, delayMs: 250, max: 400 },
      { chunks: [call(0, "c9", "kanban_complete", JSON.stringify({ summary: "ok", result: GOOD })), finish("tool_calls")] },
    ]);
    mock = { texts: () => m.requests.map(requestText), times: () => m.times, close: () => m.close() };
    agent = () => ({ kind, baseUrl: m.baseUrl, model: "mock-coder", maxSteps: 500 });
  } else {
    const script = [
      { blocks: [{ tool: "mcp__task__kanban_heartbeat", input: { note: "starting" } }] },
      { loop: [{ tool: "mcp__task__kanban_heartbeat", input: { note: "working" } }], until: seen, delayMs: 250, max: 400 },
      { blocks: [{ tool: "mcp__task__kanban_complete", input: { summary: "ok", result: GOOD } }] },
      { blocks: [{ text: "Done." }] },
    ];
    const m = kind === "claude-code" ? await new AnthropicMock(script).start() : await new ResponsesMock(script).start();
    mock = { texts: () => m.mainBodies.map(requestText), times: () => m.mainTimes, close: () => m.close() };
    agent =
      kind === "claude-code"
        ? (dir) => ({
            kind,
            command: [CLAUDE],
            maxTurns: 500,
            configDir: join(dir, "claude"),
            env: { ANTHROPIC_BASE_URL: (m as AnthropicMock).baseUrl, ANTHROPIC_API_KEY: "sk-ant-mock" },
          })
        : (dir) => ({
            kind,
            command: [CODEX],
            model: "mock-model",
            home: join(dir, "codex"),
            config: ['model_provider="mock"', `model_providers.mock={name="mock",base_url="${(m as ResponsesMock).baseUrl}",wire_api="responses"}`],
            env: { OPENAI_API_KEY: "sk-mock" },
          });
  }
  const e = await board();
  try {
    const id = await e.createTask("steered", { assignee: SEAT, body: "Work; follow notes." });
    const b = await runBridge(e, { once: false, base: { ...live, agent: agent(e.dir) } });
    try {
      const closed = new Promise<RunReport>((r) => b.daemon.on("run:closed", (rep: RunReport) => rep.taskId === id && r(rep)));
      await until("the agent working", () => mock.texts().length >= 2);
      const t0 = Date.now();
      await e.kanban(["comment", id, `${token} please also update the changelog`]);
      await closed;
      const i = mock.texts().findIndex((t) => t.includes(token));
      if (i < 0) throw new Error(`${kind}: the note never reached the model`);
      return (mock.times()[i] ?? 0) - t0;
    } finally {
      await b.daemon.stop();
    }
  } finally {
    await mock.close();
    e.cleanup();
  }
}

async function stopOnce(action: "reclaim" | "block"): Promise<number> {
  const e = await board();
  const pidFile = join(e.dir, "agent.pid");
  try {
    const id = await e.createTask("long", { assignee: SEAT, body: "MODE:hang" });
    const b = await runBridge(e, {
      once: false,
      env: { FIXTURE_PID_FILE: pidFile },
      base: { ...live, agent: { kind: "command", command: [process.execPath, AGENT], killGraceSeconds: 1, passEnv: ["FIXTURE_PID_FILE"] } },
    });
    try {
      const closed = new Promise<RunReport>((r) => b.daemon.on("run:closed", (rep: RunReport) => rep.taskId === id && r(rep)));
      await until("the agent started", () => existsSync(pidFile));
      await sleep(300);
      const t0 = Date.now();
      await e.kanban(action === "reclaim" ? ["reclaim", id, "--reason", "operator"] : ["block", id, "operator stop"]);
      await closed;
      const pid = Number(readFileSync(pidFile, "utf8"));
      await until("the agent gone", () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      });
      return Date.now() - t0;
    } finally {
      await b.daemon.stop();
    }
  } finally {
    e.cleanup();
  }
}

async function series(name: string, f: (i: number) => Promise<number>): Promise<{ samplesMs: number[]; medianMs: number }> {
  const samplesMs: number[] = [];
  for (let i = 0; i < REPEATS; i += 1) samplesMs.push(await f(i));
  const out = { samplesMs, medianMs: median(samplesMs) };
  console.log(`${name}: median ${out.medianMs} ms (${samplesMs.join(", ")})`);
  return out;
}

const results = {
  at: new Date().toISOString(),
  board: HERMES ? `real Hermes (${HERMES})` : "emulator",
  repeats: REPEATS,
  heartbeatSeconds: 120,
  noteToModel: {
    "claude-code": await series("note → Claude request", (i) => noteOnce("claude-code", `NOTE-c${i}-${Date.now()}`)),
    codex: await series("note → Codex request", (i) => noteOnce("codex", `NOTE-x${i}-${Date.now()}`)),
    "local-llm": await series("note → local-LLM request", (i) => noteOnce("local-llm", `NOTE-l${i}-${Date.now()}`)),
  },
  stop: {
    reclaim: await series("reclaim → agent gone", () => stopOnce("reclaim")),
    block: await series("block → agent gone", () => stopOnce("block")),
  },
};
writeFileSync(resolve("bench", HERMES ? "results-steering-real.json" : "results-steering.json"), `${JSON.stringify(results, null, 2)}\n`);
