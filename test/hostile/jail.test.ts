// The jail conformance suite (agent.isolation): every agent kind — a command agent, the local loop's
// run_command, the real Claude Code and Codex CLIs against scripted model servers — runs its task inside
// bubblewrap and completes, and from inside it cannot read the bridge's /proc entry, its HOME or config,
// the state dir, another workspace or the board's database, and writes only its workspace and its run's
// result/session files. One control run without the jail shows the probe does see those (so a jail that
// stopped working would fail here). Needs a working bubblewrap: skipped without one unless
// HKB_REQUIRE_BWRAP is set (CI sets it).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/jail/policy.js";
import { PYTHON_RELAY } from "../../src/jail/relay.js";
import { AGENT, SEAT, runBridge } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { type ProbeResult, parseProbe, probeScript, probeTargets, savedTranscript } from "../helpers/jail-probe.js";
import { AnthropicMock, ResponsesMock } from "../helpers/model-mocks.js";
import { OpenAiMock, call, finish, usage } from "../helpers/openai-mock.js";
import { parseStream, streamProbe } from "../helpers/stream-probe.js";
import { CLAUDE, CODEX } from "../helpers/agent-clis.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;
const RESULT = { ok: true, status: "ok", items: 1, metrics: {}, note: "probed", artifacts: [], error: null };

let emu: Emu | undefined;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  emu?.cleanup();
  emu = undefined;
});

/** An emulator board with one task for the seat, and the probe for its agent. */
async function board(title: string, body: string) {
  emu = await Emu.create();
  const id = await emu.createTask(title, { assignee: SEAT, body });
  const stateDir = join(emu.dir, "state");
  const targets = probeTargets({ home: emu.home, stateDir, dir: emu.dir });
  return { e: emu, id, stateDir, targets, script: probeScript(targets) };
}

/**
 * Nothing of the bridge was readable; nothing the agent wrote outside its workspace reached the host (the
 * jail's own /tmp and its root are tmpfs: a write there vanishes with the jail); its workspace write did.
 */
function expectJailed(p: ProbeResult, targets: { read: string[]; write: string[] }, workspace?: string): void {
  expect(p.read).toEqual([]);
  expect(p.denied.sort()).toEqual([...targets.read].sort());
  for (const w of targets.write) expect(existsSync(w), w).toBe(false);
  expect(p.wrote).toContain("./probe-ok");
  if (workspace) expect(existsSync(join(workspace, "probe-ok"))).toBe(true);
}

/** The reason of the task's last block (the message of a failed "done"). */
const blockedWhy = (d: { events: { kind: string; payload?: Record<string, unknown> | null }[] }) =>
  String(d.events.findLast((x) => x.kind === "blocked")?.payload?.reason ?? "not blocked");

const jailed = (extra: Record<string, unknown> = {}) => ({ isolation: { mode: "bwrap" }, killGraceSeconds: 2, ...extra });

/**
 * Row 5's last door with the real CLI (its tool runs the stream probe): the CLI's own processes (`comms`) are
 * there and open to no process of the jail, nothing whose memory opens holds the stream, and the probe bites.
 */
function expectStreamClosed(text: string, comms: readonly string[]): void {
  const { lines, fd, debug, debugControl } = parseStream(text);
  for (const comm of comms) {
    const own = lines.filter((l) => l.comm === comm);
    expect(own.length, `${comm} in ${JSON.stringify(lines)}`).toBeGreaterThan(0);
    for (const l of own) expect(l, JSON.stringify(lines)).toMatchObject({ holds: "unknown", mem: "Permission-denied" });
  }
  expect(lines.filter((l) => l.holds === "yes")).toEqual([]);
  // the relay (the CLI's API traffic passes it: its Python, or its Node) and the task-tools server run from execute-only images too
  expect(lines.filter((l) => /^(?:node|python3(?:\.\d+)?)$/.test(l.comm) && l.who !== "control" && l.mem === "OPEN")).toEqual([]);
  if (existsSync(PYTHON_RELAY[0] ?? "")) expect(lines.filter((l) => /^python3/.test(l.comm)).length, JSON.stringify(lines)).toBeGreaterThan(0);
  expect(lines.find((l) => l.who === "control")?.mem).toBe("OPEN");
  expect(fd).toBe("refused");
  expect(debug).toBe("closed");
  expect(debugControl).toBe("open");
}

describe.skipIf(!BWRAP && !process.env.HKB_REQUIRE_BWRAP)("the jail (agent.isolation: bwrap)", () => {
  it("a command agent completes in it; it sees nothing of the bridge and writes only its workspace, result and session", async () => {
    const { e, id, stateDir, targets, script } = await board("probe", "MODE:jail-probe");
    const b = await runBridge(e, {
      env: { FIXTURE_PROBE: script },
      base: { agent: { kind: "command", command: [process.execPath, AGENT], passEnv: ["FIXTURE_PROBE"], ...jailed() } },
    });
    await b.daemon.done;
    const d = await e.show(id);
    expect(d.task.status, blockedWhy(d)).toBe("done");
    const p = parseProbe(d.runs.at(-1)?.summary ?? "", stateDir);
    expectJailed(p, targets);
    expect(p.nowrite.some((x) => x.endsWith("inbox.jsonl"))).toBe(true);
    expect(b.daemon.status().seat.isolation).toMatchObject({ mode: "bwrap" });
    // the session file was written from inside (the next run would resume it)
    expect(JSON.stringify(d.runs.at(-1)?.metadata)).toContain("sess-probe");
  });

  it("control: without the jail the same probe reads the bridge's /proc entry, HOME, config, state, another workspace and the board", async () => {
    const { e, id, stateDir, targets, script } = await board("probe", "MODE:jail-probe");
    await (
      await runBridge(e, {
        env: { FIXTURE_PROBE: script },
        base: { agent: { kind: "command", command: [process.execPath, AGENT], passEnv: ["FIXTURE_PROBE"], isolation: "none", killGraceSeconds: 2 } },
      })
    ).daemon.done;
    const p = parseProbe((await e.show(id)).runs.at(-1)?.summary ?? "", stateDir);
    expect(p.read).toEqual([...targets.read]);
    expect(p.wrote).toContain(join(stateDir, "pwned"));
  });

  it("the local loop's run_command runs in it", async () => {
    const { e, id, targets, script } = await board("probe", "probe the jail");
    const llm = await OpenAiMock.start([
      { chunks: [call(0, "c1", "run_command", JSON.stringify({ argv: ["sh", "-c", script] })), finish("tool_calls"), usage(10, 5)] },
      { chunks: [call(0, "c2", "kanban_complete", JSON.stringify({ summary: "probed", result: RESULT })), finish("tool_calls"), usage(10, 5)] },
    ]);
    closers.push(() => llm.close());
    await (
      await runBridge(e, {
        base: { agent: { kind: "local-llm", baseUrl: llm.baseUrl, model: "mock-coder", maxSteps: 4, allowCommands: ["sh -c"], ...jailed() } },
      })
    ).daemon.done;
    {
      const d = await e.show(id);
      expect(d.task.status, blockedWhy(d)).toBe("done");
    }
    expectJailed(parseProbe(JSON.stringify(llm.requests[1])), targets);
  });

  it("the real Claude Code CLI runs in it: its Bash tool sees nothing of the bridge; heartbeat and complete still work", async () => {
    const { e, id, stateDir, targets, script } = await board("probe", "probe the jail");
    const mock = await new AnthropicMock([
      {
        blocks: [
          { tool: "mcp__task__kanban_heartbeat", input: { note: "probing" } },
          { tool: "Bash", input: { command: `${script}\n${streamProbe("$(pgrep -o -x claude)")}`, description: "probe" } },
        ],
      },
      { blocks: [{ tool: "mcp__task__kanban_complete", input: { summary: "probed", result: RESULT } }] },
      { blocks: [{ text: "Done." }] },
    ]).start();
    closers.push(() => mock.close());
    await (
      await runBridge(e, {
        base: {
          agent: {
            kind: "claude-code",
            command: [CLAUDE],
            configDir: join(e.dir, "claude"),
            allowedTools: ["Bash"],
            env: { ANTHROPIC_BASE_URL: mock.baseUrl, ANTHROPIC_API_KEY: "sk-ant-mock", CLAUDE_CODE_MAX_RETRIES: "1" },
            ...jailed(),
          },
        },
      })
    ).daemon.done;
    const d = await e.show(id);
    expect(d.task.status, blockedWhy(d)).toBe("done");
    expect(d.events.filter((x) => x.kind === "heartbeat").map((x) => x.payload?.note)).toContain("probing");
    expectJailed(parseProbe(JSON.stringify(mock.mainBodies[1])), targets);
    expectStreamClosed(JSON.stringify(mock.mainBodies[1]), ["claude"]);
    // its session was written from inside the jail into the run's own home — never into the seat's login,
    // which no run sees; a completed task keeps its session's transcript (a reopen resumes it), and only that
    const session = /"session":\{"id":"([0-9a-f-]{36})"/.exec(JSON.stringify(d.runs.at(-1)?.metadata))?.[1];
    expect(session).toBeDefined();
    expect(existsSync(join(e.dir, "claude", "projects"))).toBe(false);
    const saved = savedTranscript(stateDir, e.slug, id);
    expect(saved.length).toBeGreaterThan(0);
    expect(saved.every((f) => f.startsWith("projects/") && f.includes(session ?? "?"))).toBe(true);
  });

  it("the real Codex CLI runs in it: exec_command sees nothing of the bridge; the MCP task tools still work", async () => {
    const { e, id, targets, script } = await board("probe", "probe the jail");
    const mock = await new ResponsesMock([
      { blocks: [{ tool: "exec_command", input: { cmd: `${script}\n${streamProbe("$(pgrep -o -x codex)")}` } }] },
      { blocks: [{ tool: "mcp__task__kanban_complete", input: { summary: "probed", result: RESULT } }] },
      { blocks: [{ text: "Done." }] },
    ]).start();
    closers.push(() => mock.close());
    await (
      await runBridge(e, {
        base: {
          agent: {
            kind: "codex",
            command: [CODEX],
            model: "mock-model",
            home: join(e.dir, "codex"),
            config: ['model_provider="mock"', `model_providers.mock={name="mock",base_url="${mock.baseUrl}",wire_api="responses"}`],
            env: { OPENAI_API_KEY: "sk-mock" },
            ...jailed(),
          },
        },
      })
    ).daemon.done;
    const d = await e.show(id);
    expect(d.task.status, blockedWhy(d)).toBe("done");
    expectJailed(parseProbe(JSON.stringify(mock.mainBodies[1])), targets);
    // the launcher (node, codex.js) and the native binary both hold the stream: both closed
    expectStreamClosed(JSON.stringify(mock.mainBodies[1]), ["codex", "node"]);
    // its thread (the session a cut run resumes) was written from inside the jail into the run's own home
    expect(JSON.stringify(d.runs.at(-1)?.metadata)).toMatch(/"session":\{"id":"[0-9a-f-]{36}"/);
    expect(existsSync(join(e.dir, "codex", "sessions"))).toBe(false);
  });
});
