// A first seat in minutes: `hermes-bridge init` for each setup writes a config that doctor passes once
// the printed login is done — with the real Claude Code and Codex CLIs (pinned devDependencies) and the
// scripted model servers standing in for the APIs; the emulator is the board. Where a login needs a
// browser (a Claude subscription, a ChatGPT plan) the test leaves what that login leaves: the CLI's own
// credentials file in the seat's home. Codex's API-key login is run exactly as printed.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/agents/kinds.js";
import { probeBwrap } from "../../src/jail/policy.js";
import { ConfigError } from "../../src/errors/index.js";
import { runProcess } from "../../src/process/runner.js";
import { AGENT } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";
import { AnthropicMock, ResponsesMock, type ScriptedTurn } from "../helpers/model-mocks.js";
import { OpenAiMock } from "../helpers/openai-mock.js";
import { CLAUDE, CODEX } from "../helpers/agent-clis.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;

let emu: Emu | undefined;
const mocks: { close(): Promise<void> }[] = [];
afterEach(async () => {
  emu?.cleanup();
  emu = undefined;
  await Promise.all(mocks.splice(0).map((m) => m.close()));
});

const env = (e: Emu, extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? "", HOME: e.dir, ...extra });
const cli = (e: Emu, args: string[], extra: Record<string, string> = {}, o: { captureLimit?: number } = {}) =>
  runProcess({ argv: [process.execPath, CLI_BIN, ...args], env: env(e, extra), cwd: e.dir, timeoutMs: 120_000, ...o });
const sh = (e: Emu, line: string, extra: Record<string, string> = {}) => runProcess({ argv: ["/bin/sh", "-c", line], env: env(e, extra), timeoutMs: 60_000 });

/** `init` for one setup on the emulator board; returns the config file, the state dir and what init printed. */
async function init(setup: string, more: string[] = []) {
  emu = await Emu.create("first");
  const stateDir = join(emu.dir, "seats", "seat-1");
  const r = await cli(emu, [
    "init",
    "--board",
    "first",
    "--seat",
    "seat-1",
    "--agent",
    setup,
    "--hermes",
    `${process.execPath} ${emu.command[1]}`,
    "--hermes-home",
    emu.home,
    "--state-dir",
    stateDir,
    "--no-doctor",
    ...more,
  ]);
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  const file = join(emu.dir, "seat-1.yaml");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(stateDir).mode & 0o777).toBe(0o700);
  return { e: emu, file, stateDir, out: r.stdout };
}

async function doctor(e: Emu, file: string, extra: Record<string, string> = {}) {
  const r = await cli(e, ["doctor", "--config", file], extra);
  return { code: r.exitCode, out: r.stdout, failing: r.stdout.split("\n").filter((l) => /^\S.*\sFAIL\s/.test(l)) };
}

const COMPLETE: ScriptedTurn[] = [
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

/** The printed login block: the command lines under "Log the seat in". */
const printedLogins = (out: string) =>
  out
    .split("\n")
    .filter((l) => /^ {4}\S/.test(l) && !l.trim().startsWith("then "))
    .map((l) => l.trim());

describe("hermes-bridge init: a first seat that doctor passes once the printed login is done", () => {
  it("claude (subscription): the login home is made, the printed login is `claude auth login` in it", async () => {
    const { e, file, stateDir, out } = await init("claude", ["--agent-command", CLAUDE]);
    const home = join(stateDir, "claude");
    expect(printedLogins(out)[0]).toBe(`CLAUDE_CONFIG_DIR=${home} ${CLAUDE} auth login`);
    const before = await doctor(e, file);
    expect(before.code).toBe(1);
    expect(before.failing).toEqual([expect.stringMatching(/^agent\s+FAIL\s+auth status/)]);
    expect(before.out).toContain(`fix: log this seat in — a Claude subscription (a browser sign-in): CLAUDE_CONFIG_DIR=${home} ${CLAUDE} auth login`);
    // what `claude auth login` leaves in CLAUDE_CONFIG_DIR
    const claudeAiOauth = {
      accessToken: "sk-ant-oat01-x",
      refreshToken: "sk-ant-ort01-y",
      expiresAt: Date.now() + 86_400_000,
      scopes: ["user:inference"],
      subscriptionType: "max",
    };
    writeFileSync(join(home, ".credentials.json"), JSON.stringify({ claudeAiOauth }), { mode: 0o600 });
    const after = await doctor(e, file);
    expect(after.failing).toEqual([]);
    expect(after.code).toBe(0);
    // the printed alternative: a `setup-token` token in the bridge's environment reaches the CLI (agent.passEnv)
    rmSync(join(home, ".credentials.json"));
    expect((await doctor(e, file, { CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-token" })).code).toBe(0);
  });

  it("claude-api-key through a gateway (--base-url): doctor passes with the key in the environment, and a task completes", async () => {
    const mock = await new AnthropicMock(COMPLETE).start();
    mocks.push(mock);
    const { e, file, out } = await init("claude-api-key", ["--agent-command", CLAUDE, "--base-url", mock.baseUrl]);
    expect(out).toContain("export ANTHROPIC_API_KEY=<your key>");
    expect((await doctor(e, file)).failing).toEqual([expect.stringMatching(/^agent\s+FAIL/)]);
    const key = { ANTHROPIC_API_KEY: "sk-ant-mock" };
    expect((await doctor(e, file, key)).code).toBe(0);
    const id = await e.createTask("a first task", { assignee: "seat-1", body: "Do it." });
    const run = await cli(e, ["run", "--once", "--config", file, "--log-level", "debug", "--log-format", "json"], key, { captureLimit: 64 * 1024 * 1024 });
    expect(run.exitCode).toBe(0);
    expect((await e.show(id)).task.status).toBe("done");
    // No traffic the seat did not ask for (issue 49): the proxy's own log — every name it resolved, every
    // address it opened, the start check's and the run's — holds the loopback gateway alone: no DNS lookup,
    // no connection to api.anthropic.com or any default host of the kind.
    const lines = run.stdout.split("\n").flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
    const jailed = lines.some((l) => l.isolation === "bwrap" && l.network === "proxy");
    if (BWRAP || process.env.HKB_REQUIRE_BWRAP) expect(jailed).toBe(true);
    if (jailed) {
      const egress = lines.filter((l) => typeof l.msg === "string" && l.msg.startsWith("egress: "));
      const mockAt = new URL(mock.baseUrl);
      expect(egress.filter((l) => l.what === "connect" && l.during === "the start check")).toEqual([
        expect.objectContaining({ host: mockAt.hostname, port: Number(mockAt.port), address: "127.0.0.1" }),
      ]);
      expect(egress.filter((l) => l.what === "connect" && l.task_id === id).length).toBeGreaterThan(0);
      for (const l of egress) expect({ what: l.what, host: l.host, port: l.port }).toEqual({ what: "connect", host: "127.0.0.1", port: Number(mockAt.port) });
    }
  });

  it("codex (ChatGPT): the printed login makes CODEX_HOME first; with its auth.json doctor passes", async () => {
    const { e, file, stateDir, out } = await init("codex", ["--agent-command", CODEX]);
    const home = join(stateDir, "codex");
    expect(printedLogins(out)).toEqual([
      `mkdir -p -m 700 ${home} && CODEX_HOME=${home} ${CODEX} login`,
      `mkdir -p -m 700 ${home} && CODEX_HOME=${home} ${CODEX} login --device-auth`,
    ]);
    rmSync(home, { recursive: true });
    const before = await doctor(e, file);
    expect(before.failing).toEqual([expect.stringMatching(/^agent\s+FAIL\s+login status/)]);
    expect(before.out).toContain(`mkdir -p -m 700 ${home} && printenv OPENAI_API_KEY | CODEX_HOME=${home} ${CODEX} login --with-api-key`);
    // what `codex login` leaves in CODEX_HOME (its ChatGPT token set; the id token is read, not verified, by `login status`)
    mkdirSync(home, { recursive: true, mode: 0o700 });
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const jwt = `${b64({ alg: "none" })}.${b64({ email: "seat@example.com", exp: 4102444800, "https://api.openai.com/auth": { chatgpt_plan_type: "pro", chatgpt_account_id: "a" } })}.s`;
    const tokens = { id_token: jwt, access_token: jwt, refresh_token: "rt", account_id: "a" };
    writeFileSync(join(home, "auth.json"), JSON.stringify({ auth_mode: "chatgpt", OPENAI_API_KEY: null, tokens, last_refresh: new Date().toISOString() }), {
      mode: 0o600,
    });
    const after = await doctor(e, file);
    expect(after.failing).toEqual([]);
    expect(after.code).toBe(0);
  });

  it("codex-api-key: the printed login, run as printed (the dir gone first), logs the seat in", async () => {
    const { e, file, stateDir, out } = await init("codex-api-key", ["--agent-command", CODEX]);
    const home = join(stateDir, "codex");
    const [line] = printedLogins(out);
    expect(line).toBe(`mkdir -p -m 700 ${home} && printenv OPENAI_API_KEY | CODEX_HOME=${home} ${CODEX} login --with-api-key`);
    expect((await doctor(e, file)).code).toBe(1);
    rmSync(home, { recursive: true });
    const login = await sh(e, line ?? "false", { OPENAI_API_KEY: "sk-test-key" });
    expect(login.exitCode).toBe(0);
    expect(existsSync(join(home, "auth.json"))).toBe(true);
    const after = await doctor(e, file);
    expect(after.failing).toEqual([]);
    expect(after.code).toBe(0);
  });

  it("codex-endpoint: base URL and model written as Codex needs them; doctor passes; the provider gets the tools and a task completes", async () => {
    const mock = await new ResponsesMock(COMPLETE).start();
    mocks.push(mock);
    const { e, file, out } = await init("codex-endpoint", [
      "--agent-command",
      CODEX,
      "--base-url",
      mock.baseUrl,
      "--model",
      "mock-model",
      "--api-key-env",
      "MOCK_KEY",
    ]);
    expect(out).toContain("export MOCK_KEY=<the endpoint's key>");
    expect((await doctor(e, file, { MOCK_KEY: "k" })).code).toBe(0);
    const id = await e.createTask("a first task", { assignee: "seat-1", body: "Do it." });
    const run = await cli(e, ["run", "--once", "--config", file], { MOCK_KEY: "k" });
    expect(run.exitCode).toBe(0);
    const shown = await e.show(id);
    // (a one-letter "key" is passed on but never masked in the API's answers: masking it would corrupt them)
    expect(shown.task.status, shown.comments.at(-1)?.body).toBe("done");
    expect(mock.bodies[0]?.model).toBe("mock-model");
    expect(JSON.stringify(mock.bodies[0]?.tools ?? [])).toContain("kanban_complete");
  });

  it("local-llm: doctor asks the server for the model", async () => {
    const mock = await OpenAiMock.start([], "qwen-coder");
    mocks.push(mock);
    const { e, file } = await init("local-llm", ["--base-url", mock.baseUrl, "--model", "qwen-coder"]);
    expect((await doctor(e, file)).code).toBe(0);
    const other = join(e.dir, "other.yaml");
    const wrong = await cli(e, [
      "init",
      "--board",
      "first",
      "--seat",
      "seat-2",
      "--agent",
      "local-llm",
      "--base-url",
      mock.baseUrl,
      "--model",
      "absent",
      "--hermes",
      `${process.execPath} ${e.command[1]}`,
      "--hermes-home",
      e.home,
      "--state-dir",
      join(e.dir, "s2"),
      "--config",
      other,
    ]);
    expect(wrong.exitCode).toBe(0);
    expect(wrong.stdout).toMatch(/^agent\s+FAIL\s+.*without absent/m);
    expect(wrong.stdout).toContain("doctor: fix what failed");
  });

  it("command: nothing to log in; init refuses to overwrite a config, and a setup without what it needs", async () => {
    const { e, file, out } = await init("command", ["--agent-command", `${process.execPath} ${AGENT}`]);
    expect(out).toContain("no login: the command agent needs none");
    // from a checkout (no hermes-bridge on PATH) the next commands name how this CLI was run: they run as printed
    expect(out).toContain(`Then: node ${CLI_BIN} doctor --config ${file}\n`);
    expect(out).toContain(`Run:  node ${CLI_BIN} run --config ${file}   (one daemon per seat`);
    // the jail and its network are in the written config, each key said
    const written = readFileSync(file, "utf8");
    expect(written).toMatch(/# the agent's jail \(bubblewrap\) and its network — docs\/security.md\n\s+isolation:\n/);
    expect(written).toMatch(/# proxy: only the agent's API and login hosts plus allowHosts.*\n\s+network: proxy\n/);
    expect(written).toMatch(/# more hosts the agent may reach.*\n\s+allowHosts: \[\]\n/);
    expect((await doctor(e, file)).code).toBe(0);
    const again = await cli(e, ["init", "--board", "first", "--seat", "seat-1", "--agent", "command", "--agent-command", "true"]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain("seat-1.yaml exists");
    const bare = await cli(e, ["init", "--board", "first", "--seat", "seat-3", "--agent", "codex-endpoint", "--base-url", "http://127.0.0.1:1/v1"]);
    expect(bare.exitCode).toBe(2);
    expect(bare.stderr).toContain("init --agent codex-endpoint: --model is required");
  });
});

describe("a Codex seat on a custom provider", () => {
  it("is refused without a model, naming agent.model (Codex would send no tools)", () => {
    const base = {
      boards: ["b"],
      assignee: "seat-1",
      agent: {
        kind: "codex",
        config: ['model_provider="custom"', 'model_providers.custom={name="custom",base_url="http://127.0.0.1:1/v1",wire_api="responses"}'],
      },
    };
    let issues: readonly { path: string; message: string }[] = [];
    try {
      loadConfig({ env: {}, base });
    } catch (err) {
      if (err instanceof ConfigError) issues = err.issues;
    }
    expect(issues).toEqual([{ path: "agent.model", message: expect.stringContaining("is required with a custom model provider") }]);
    expect(() => loadConfig({ env: {}, base: { ...base, agent: { ...base.agent, model: "m" } } })).not.toThrow();
  });
});
