// The agent's own channels are no way around the sandbox either (issue rows 3, 4, 10, 11): the
// local loop's run_command runs no shell, its read_file never blocks on a FIFO, a prompt of any size
// reaches Claude Code and Codex (stdin, never argv), and log lines that echo agent text are redacted.
import { existsSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runProcess } from "../../src/process/runner.js";
import { runArgv, runBridge, SEAT } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";
import { OpenAiMock, call, finish } from "../helpers/openai-mock.js";

let emu: Emu;
let llm: OpenAiMock | undefined;
afterEach(async () => {
  emu?.cleanup();
  await llm?.close();
  llm = undefined;
});

const SECRET = "TOP-SECRET-HOST-CONTENT-5512";
const FAKE = resolve("test/fixtures/agents/fake-cli.mjs");
const complete = (artifacts: unknown[] = []) =>
  call(0, "c9", "kanban_complete", JSON.stringify({ summary: "done", result: { ok: true, status: "ok", items: 1, artifacts } }));

async function localLlm(replies: Parameters<typeof OpenAiMock.start>[0], allowCommands: string[]) {
  emu = await Emu.create();
  llm = await OpenAiMock.start(replies);
  const id = await emu.createTask("llm", { assignee: SEAT, body: "work" });
  await (await runBridge(emu, { base: { agent: { kind: "local-llm", baseUrl: llm.baseUrl, model: "mock-coder", maxSteps: 6, allowCommands } } })).daemon.done;
  return { id, doc: await emu.show(id) };
}

describe("the local loop's tools", () => {
  it("row 3: run_command runs no shell — `true ; cp <host file> out.txt` copies nothing, so nothing of the host is attached", async () => {
    const host = join(process.env.TMPDIR ?? "/tmp", `hkb-host-${process.pid}.txt`);
    writeFileSync(host, `${SECRET}\n`);
    const { doc } = await localLlm(
      [
        { chunks: [call(0, "c1", "run_command", JSON.stringify({ command: `true ; cp ${host} out.txt` })), finish("tool_calls")] },
        { chunks: [complete([{ type: "file", label: "out", path: "out.txt" }]), finish("tool_calls")] },
      ],
      ["true"],
    );
    expect(JSON.stringify(doc)).not.toContain(SECRET);
    expect(doc.task.status).toBe("blocked"); // the declared deliverable does not exist
    const tool = (llm?.requests[1] as { messages: { role: string; content?: string }[] } | undefined)?.messages.find((m) => m.role === "tool");
    expect(tool?.content).toBe("exit 0\n");
    expect(existsSync(join(doc.task.workspace_path ?? "/nonexistent", "out.txt"))).toBe(false);
  });

  it("row 4: read_file on a FIFO is an error result, never a hang: the run goes on and completes", async () => {
    const { doc } = await localLlm(
      [
        { chunks: [call(0, "c1", "run_command", JSON.stringify({ command: "mkfifo pipe" })), finish("tool_calls")] },
        { chunks: [call(0, "c2", "read_file", JSON.stringify({ path: "pipe" })), finish("tool_calls")] },
        { chunks: [complete(), finish("tool_calls")] },
      ],
      ["mkfifo"],
    );
    expect(doc.task.status).toBe("done");
    const tool = (llm?.requests[2] as { messages: { role: string; content?: string }[] } | undefined)?.messages.filter((m) => m.role === "tool").at(-1);
    expect(tool?.content).toMatch(/^error: pipe is not a regular file \(a FIFO( or socket)?\)/);
  }, 30_000);
});

describe("row 10: a prompt of any size", () => {
  it.each(["claude", "codex"] as const)("%s: a 100 KB body and a 100 KB comment reach the agent (stdin), no E2BIG", async (kind) => {
    emu = await Emu.create();
    const id = await emu.createTask("big", { assignee: SEAT, body: `MODE:complete ${"b".repeat(100_000)}` });
    expect((await emu.kanban(["comment", id, "c".repeat(100_000)])).code).toBe(0);
    const agent =
      kind === "claude"
        ? { kind: "claude-code", command: [process.execPath, FAKE], configDir: join(emu.dir, "claude"), env: { FAKE_CLI: "claude", FAKE_SCRIPT: "complete" } }
        : { kind: "codex", command: [process.execPath, FAKE], home: join(emu.dir, "codex"), env: { FAKE_CLI: "codex", FAKE_SCRIPT: "complete" } };
    await (await runBridge(emu, { base: { agent: { ...agent, killGraceSeconds: 1 } } })).daemon.done;
    expect((await emu.show(id)).task.status).toBe("done");
  });
});

describe("row 11: log lines that echo agent text", () => {
  it("a secret in a usage limit's kind and message, or a progress line, never reaches the log", async () => {
    emu = await Emu.create();
    const secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
    await emu.createTask("limit", { assignee: SEAT, body: "MODE:limit-secret" });
    const argv = [process.execPath, CLI_BIN, ...runArgv(emu, join(emu.dir, "state"), { once: true }), "--log-format", "json", "--log-level", "debug"];
    const hostile = resolve("test/fixtures/agents/hostile-agent.mjs");
    argv[argv.indexOf("--agent-command") + 1] = `${process.execPath} ${hostile}`;
    const r = await runProcess({
      argv,
      env: { PATH: process.env.PATH ?? "", HOME: emu.dir },
      timeoutMs: 60_000,
    });
    expect(r.stdout).toMatch(/seat paused/);
    expect(r.stdout).not.toContain(secret);
    expect(r.stderr).not.toContain(secret);
  });
});
