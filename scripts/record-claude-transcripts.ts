// Re-records the Claude Code transcripts the translator tests replay (test/fixtures/agent-transcripts/*claude*)
// from the CLI installed in node_modules (the pinned one) or CLAUDE_BIN: each scenario runs the real CLI against a
// scripted Anthropic API on 127.0.0.1 (test/helpers/model-mocks.ts) or with no credentials, in a scratch
// workspace and home; the file names the CLI's version on its first line. No network: every request goes to
// loopback. `npm run record:claude` (~1 minute); review the diff of the files and of the translator snapshots.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { AnthropicMock, type ScriptedTurn } from "../test/helpers/model-mocks.js";

const BIN = process.env.CLAUDE_BIN ?? resolve("node_modules/.bin/claude");
const OUT = resolve("test/fixtures/agent-transcripts");
const STUB = resolve("scripts/record/task-tools-stub.mjs");
const version = spawnSync(BIN, ["--version"], { encoding: "utf8" }).stdout.trim().split(" ")[0] ?? "?";
/** The recording's instant: reset times are set relative to it, and the tests read each file at it (its first line). */
const AT = new Date();
const NOW_S = Math.floor(AT.getTime() / 1000);

interface Scenario {
  file: string;
  args: string[];
  env?: Record<string, string>;
  /** The scripted API (turns), or none: the CLI has no credentials and no API. */
  turns?: ScriptedTurn[];
  mcp?: boolean;
  stdin?: string;
  note: string;
}

const error = (status: number, type: string, message: string, headers: Record<string, string> = {}): ScriptedTurn => ({
  status,
  body: { type: "error", error: { type, message } },
  headers,
});
const unified = (claim: "five_hour" | "seven_day", inS: number) => {
  const reset = String(NOW_S + inS);
  const w = claim === "five_hour" ? "5h" : "7d";
  return {
    "anthropic-ratelimit-unified-status": "rejected",
    "anthropic-ratelimit-unified-reset": reset,
    "anthropic-ratelimit-unified-representative-claim": claim,
    [`anthropic-ratelimit-unified-${w}-status`]: "rejected",
    [`anthropic-ratelimit-unified-${w}-reset`]: reset,
  };
};
const KEY = { ANTHROPIC_API_KEY: "sk-ant-mock" };
const OAUTH = { CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-mock", ANTHROPIC_API_KEY: "" };
const STREAM = ["--output-format", "stream-json", "--verbose"];
const TOOLS = ["--strict-mcp-config", "--allowedTools", "mcp__task", "--disallowedTools", "ScheduleWakeup,SendMessage,ListAgents"];
const WORK: ScriptedTurn[] = [
  {
    blocks: [
      { text: "Reporting progress, then checking the repo." },
      { tool: "mcp__task__kanban_heartbeat", input: { note: "starting work" } },
      { tool: "Bash", input: { command: "touch made-by-agent.txt", description: "Create a file" } },
    ],
  },
  { blocks: [{ tool: "mcp__task__kanban_complete", input: { summary: "done", result: { ok: true } } }] },
  { blocks: [{ text: "Done. Summary: reported a heartbeat; (end of scripted reply)" }] },
];

const SCENARIOS: Scenario[] = [
  { file: "mockrun-claude-400-credit.txt", args: ["-p", "hi", ...STREAM], env: KEY, turns: [error(400, "invalid_request_error", "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.")], note: "HTTP 400 credit balance too low" },
  { file: "mockrun-claude-401.txt", args: ["-p", "hi", ...STREAM], env: { ...KEY, CLAUDE_CODE_MAX_RETRIES: "2" }, turns: Array(3).fill(error(401, "authentication_error", "invalid x-api-key")), note: "HTTP 401 authentication_error invalid x-api-key, every attempt" },
  { file: "mockrun-claude-429-oauth-subscription.txt", args: ["-p", "hi", ...STREAM], env: { ...OAUTH, CLAUDE_CODE_MAX_RETRIES: "2" }, turns: Array(3).fill(error(429, "rate_limit_error", "rate limited", unified("five_hour", 3 * 3600))), note: "HTTP 429, unified-status rejected, representative-claim five_hour, reset 3 h after the recording; an OAuth token: the subscription seat's path" },
  { file: "mockrun-claude-429-oauth-weekly.txt", args: ["-p", "hi", ...STREAM], env: { ...OAUTH, CLAUDE_CODE_MAX_RETRIES: "0" }, turns: [error(429, "rate_limit_error", "rate limited", unified("seven_day", 50 * 3600))], note: "HTTP 429, unified-status rejected, representative-claim seven_day, reset 50 h after the recording" },
  { file: "mockrun-claude-429-ratelimit.txt", args: ["-p", "hi", ...STREAM], env: { ...KEY, CLAUDE_CODE_MAX_RETRIES: "2" }, turns: Array(3).fill(error(429, "rate_limit_error", "rate limited", unified("five_hour", 3 * 3600))), note: "HTTP 429 rate_limit_error with unified-status rejected, five_hour, reset 3 h after the recording; an API key" },
  { file: "mockrun-claude-529-overloaded.txt", args: ["-p", "hi", ...STREAM], env: { ...KEY, CLAUDE_CODE_MAX_RETRIES: "2" }, turns: Array(3).fill(error(529, "overloaded_error", "Overloaded")), note: "HTTP 529 overloaded_error" },
  { file: "mockrun-claude-stream-json-success.txt", args: ["-p", "Work on task T-42. Report progress with the heartbeat tool.", ...STREAM, ...TOOLS, "--max-turns", "10"], env: KEY, mcp: true, turns: WORK, note: "scripted replies: heartbeat + Bash (denied: default permission mode), complete, a final text" },
  { file: "mockrun-claude-json-success.txt", args: ["-p", "Work on task T-42. Report progress with the heartbeat tool.", "--output-format", "json", ...TOOLS, "--max-turns", "10"], env: KEY, mcp: true, turns: WORK, note: "the same, --output-format json" },
  { file: "mockrun-claude-dontask.txt", args: ["-p", "Work on task T-42.", ...STREAM, ...TOOLS, "--permission-mode", "dontAsk"], env: KEY, mcp: true, turns: WORK, note: "the same, --permission-mode dontAsk" },
  { file: "mockrun-claude-max-turns.txt", args: ["-p", "Work on task T-42.", ...STREAM, ...TOOLS, "--max-turns", "1"], env: KEY, mcp: true, turns: WORK, note: "--max-turns 1: a tool call in the first turn" },
  { file: "mockrun-claude-partial-messages.txt", args: ["-p", "Work on task T-42.", ...STREAM, "--include-partial-messages", ...TOOLS], env: KEY, mcp: true, turns: WORK, note: "--include-partial-messages" },
  {
    file: "mockrun-claude-background-subagent.txt",
    args: ["-p", "Work on task T-42.", ...STREAM, ...TOOLS, "--permission-mode", "bypassPermissions"],
    env: { ...KEY, IS_SANDBOX: "1" },
    mcp: true,
    turns: [
      { blocks: [{ tool: "Agent", input: { description: "count files", prompt: "Count the files.", subagent_type: "general-purpose", run_in_background: true } }] },
      { blocks: [{ text: "three files" }] },
      { blocks: [{ text: "Waiting for the subagent." }] },
      { blocks: [{ text: "The subagent reported three files." }] },
    ],
    note: "a subagent started in the background (the CLI's default since 2.1.198): the turn ends while it runs, a second turn follows its notification; two result lines",
  },
  {
    file: "mockrun-claude-subagent-limit.txt",
    args: ["-p", "Work on task T-42.", ...STREAM, ...TOOLS, "--permission-mode", "bypassPermissions"],
    env: { ...OAUTH, IS_SANDBOX: "1", CLAUDE_CODE_MAX_RETRIES: "0", CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: "1" },
    mcp: true,
    turns: [
      { blocks: [{ tool: "Agent", input: { description: "count files", prompt: "Count the files.", subagent_type: "general-purpose" } }] },
      error(429, "rate_limit_error", "rate limited", unified("five_hour", 2 * 3600)),
      { blocks: [{ text: "The subagent could not finish." }] },
    ],
    note: "a foreground subagent (CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1) meets a subscription limit: reported to the parent as the task's failure",
  },
  { file: "norun-claude-stream-json.txt", args: ["-p", "hi", ...STREAM], stdin: "", note: "no credentials" },
  { file: "norun-claude-json.txt", args: ["-p", "hi", "--output-format", "json"], stdin: "", note: "no credentials" },
  { file: "norun-claude-text.txt", args: ["-p", "hi"], stdin: "", note: "no credentials" },
  { file: "norun-claude-bare.txt", args: ["--bare", "-p", "hi", ...STREAM], stdin: "", note: "no credentials" },
  { file: "norun-claude-maxturns.txt", args: ["-p", "hi", ...STREAM, "--max-turns", "3"], stdin: "", note: "no credentials" },
  { file: "norun-claude-bypass-root.txt", args: ["-p", "hi", ...STREAM, "--permission-mode", "bypassPermissions"], stdin: "", note: "as root, without IS_SANDBOX" },
  { file: "norun-claude-bypass-root-IS_SANDBOX.txt", args: ["-p", "hi", ...STREAM, "--dangerously-skip-permissions"], env: { IS_SANDBOX: "1" }, stdin: "", note: "as root, IS_SANDBOX=1" },
  { file: "norun-claude-fakekey-nonetwork.txt", args: ["-p", "hi", ...STREAM, "--max-turns", "2"], env: { ...KEY, ANTHROPIC_BASE_URL: "http://127.0.0.1:9", CLAUDE_CODE_MAX_RETRIES: "3" }, stdin: "", note: "a key, and an API base nothing answers (a closed port)" },
  { file: "norun-claude-mcp-broken.txt", args: ["-p", "hi", ...STREAM, "--mcp-config", '{"mcpServers":{"task":{"command":"/nonexistent/bin"}}}', "--strict-mcp-config"], env: { MCP_CONNECTION_NONBLOCKING: "0" }, stdin: "", note: "an MCP server that cannot start" },
  { file: "norun-claude-mcp-badjson.txt", args: ["-p", "hi", ...STREAM, "--mcp-config", '{"mcpServers":{"task":{"commandx":1}}}', "--strict-mcp-config"], stdin: "", note: "an MCP config of the wrong shape" },
];

/** The CLI as a child (the scripted API answers from this process's event loop meanwhile). */
function run(args: string[], cwd: string, env: Record<string, string>, input: string): Promise<{ stdout: string; stderr: string; status: number | null; signal: string | null }> {
  return new Promise((done) => {
    const c = spawn(BIN, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    c.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    c.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => c.kill("SIGKILL"), 90_000);
    c.on("close", (status, signal) => {
      clearTimeout(timer);
      done({ stdout, stderr, status, signal });
    });
    c.stdin.end(input);
  });
}

async function record(s: Scenario, scratch: string): Promise<void> {
  const ws = join(scratch, "ws");
  const home = join(scratch, "home");
  rmSync(ws, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
  mkdirSync(ws, { recursive: true });
  mkdirSync(home, { recursive: true });
  const mock = s.turns ? await new AnthropicMock(s.turns).start() : null;
  const mcp = join(scratch, "mcp.json");
  writeFileSync(mcp, JSON.stringify({ mcpServers: { task: { type: "stdio", command: process.execPath, args: [STUB] } } }));
  const args = s.mcp ? [...s.args, "--mcp-config", mcp] : s.args;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    MCP_CONNECTION_NONBLOCKING: "0",
    ENABLE_TOOL_SEARCH: "false",
    TZ: "UTC",
    ...(mock ? { ANTHROPIC_BASE_URL: mock.baseUrl } : {}),
    ...(s.env ?? {}),
  };
  const r = await run(args, ws, env, s.stdin ?? "");
  await mock?.close();
  const clean = (t: string) => t.replaceAll(ws, "/work/ws").replaceAll(home, "<HOME>").replaceAll(scratch, "<scratch>");
  const shown = [...Object.entries(s.env ?? {}).map(([k, v]) => `${k}=${v}`), "claude", ...args.map((a) => (a === mcp ? "<mcp.json>" : a))];
  const text = [
    `# recorded from Claude Code ${version} (npm @anthropic-ai/claude-code) at ${AT.toISOString()} by scripts/record-claude-transcripts.ts`,
    `$ ${shown.join(" ")}   (cwd=/work/ws; ${mock ? "a scripted Anthropic API on loopback: " : ""}${s.note})`,
    "--- stdout ---",
    clean(r.stdout ?? "").trimEnd(),
    "--- stderr ---",
    clean(r.stderr ?? "").trimEnd(),
    `--- EXIT=${r.status ?? r.signal} ---`,
    "",
  ].join("\n");
  writeFileSync(join(OUT, s.file), text);
  process.stdout.write(`${s.file}: exit ${r.status ?? r.signal}\n`);
}

const scratch = mkdtempSync(join(tmpdir(), "hkb-record-claude-"));
try {
  const only = process.argv.slice(2);
  for (const s of SCENARIOS) if (only.length === 0 || only.includes(s.file)) await record(s, scratch);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
