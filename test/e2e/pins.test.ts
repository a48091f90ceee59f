// A task's pinned model and skills with the real Claude Code and Codex CLIs against the scripted model
// servers: the model each CLI asks for is the task's, and the skill's text is in what it loads — Claude
// Code as a skill of a plugin of this run only (`--plugin-dir`), Codex as a skill of the run's own HOME
// (`$HOME/.agents/skills`) that its first prompt invokes: the SKILL.md body reaches the model because
// Codex loaded it, not because the bridge pasted it.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { AnthropicMock, ResponsesMock, type ScriptedTurn } from "../helpers/model-mocks.js";
import { CLAUDE, CODEX } from "../helpers/agent-clis.js";

const RESULT = { ok: true, status: "ok", items: 1, metrics: { created: 1 }, note: "done", artifacts: [], error: null };
/** The model completes the task with one tool call, then says it is done. */
const COMPLETES: ScriptedTurn[] = [
  { blocks: [{ tool: "mcp__task__kanban_complete", input: { summary: "Did the task.", result: RESULT } }] },
  { blocks: [{ text: "Done." }] },
];
const DESCRIPTION = "Haiku house style: every summary is a haiku (pinned by the task).";

let emu: Emu;
let mock: AnthropicMock | ResponsesMock | undefined;
afterEach(async () => {
  emu?.cleanup();
  await mock?.close();
  mock = undefined;
});

async function pinnedTask(extra: string[]): Promise<{ id: string; skills: string }> {
  emu = await Emu.create();
  const skills = join(emu.dir, "skills");
  mkdirSync(join(skills, "writing", "haiku-style"), { recursive: true });
  writeFileSync(
    join(skills, "writing", "haiku-style", "SKILL.md"),
    `---\nname: haiku-style\ndescription: ${DESCRIPTION}\n---\n\nWrite every summary as a haiku.\n`,
  );
  const id = await emu.createTask("pinned task", { assignee: SEAT, body: "Do the task.", extra: [...extra, "--skill", "haiku-style"] });
  return { id, skills };
}

describe("the task's model and skills reach the real CLIs", () => {
  it("Claude Code: --model is the task's, the skill is loaded from the run's own plugin", async () => {
    const { id, skills } = await pinnedTask(["--model", "claude-pinned-7", "--provider", "anthropic"]);
    const m = await new AnthropicMock(COMPLETES).start();
    mock = m;
    const b = await runBridge(emu, {
      base: {
        agent: {
          kind: "claude-code",
          command: [CLAUDE],
          model: "seat-default-model",
          maxTurns: 5,
          configDir: join(emu.dir, "claude"),
          killGraceSeconds: 2,
          skillDirs: [skills],
          env: { ANTHROPIC_BASE_URL: m.baseUrl, CLAUDE_CODE_MAX_RETRIES: "0", ANTHROPIC_API_KEY: "sk-ant-mock" },
        },
      },
    });
    await b.daemon.done;
    const doc = await emu.show(id);
    expect(doc.task.status).toBe("done");
    expect(m.mainBodies[0]?.model).toBe("claude-pinned-7");
    // The CLI lists the skill (by its description) in the request it builds: it loaded it.
    expect(JSON.stringify(m.mainBodies[0])).toContain(DESCRIPTION);
    expect(doc.runs.at(-1)?.metadata).toMatchObject({ bridge: { skills: ["haiku-style"] } });
  });

  it("Codex: -m is the task's, the skill is one of the run's own HOME and Codex loads it", async () => {
    const { id, skills } = await pinnedTask(["--model", "gpt-pinned-5"]);
    const m = await new ResponsesMock(COMPLETES).start();
    mock = m;
    const b = await runBridge(emu, {
      base: {
        agent: {
          kind: "codex",
          command: [CODEX],
          model: "seat-default-model",
          home: join(emu.dir, "codex"),
          killGraceSeconds: 2,
          skillDirs: [skills],
          config: ['model_provider="mock"', `model_providers.mock={name="mock",base_url="${m.baseUrl}",wire_api="responses"}`],
          env: { OPENAI_API_KEY: "sk-mock" },
        },
      },
    });
    await b.daemon.done;
    const doc = await emu.show(id);
    expect(doc.task.status).toBe("done");
    expect(m.mainBodies[0]?.model).toBe("gpt-pinned-5");
    const request = JSON.stringify(m.mainBodies[0]);
    // Listed among the skills Codex found (by its description), invoked by name, its body loaded by Codex.
    expect(request).toContain(DESCRIPTION);
    expect(request).toContain("$haiku-style");
    expect(request).toContain("Write every summary as a haiku.");
    expect(doc.runs.at(-1)?.metadata).toMatchObject({ bridge: { skills: ["haiku-style"] } });
  });

  it("a provider the seat's agent does not run blocks, naming both", async () => {
    const { id } = await pinnedTask(["--model", "gpt-pinned-5", "--provider", "openai"]);
    const b = await runBridge(emu, {
      base: { agent: { kind: "claude-code", command: [CLAUDE], configDir: join(emu.dir, "claude"), env: { ANTHROPIC_API_KEY: "sk-ant-mock" } } },
    });
    await b.daemon.done;
    const doc = await emu.show(id);
    expect(doc.task.status).toBe("blocked");
    const reason = String(doc.events.findLast((e) => e.kind === "blocked")?.payload?.reason);
    expect(reason).toContain("gpt-pinned-5 of the provider openai");
    expect(reason).toContain("claude-code");
    expect(doc.events.findLast((e) => e.kind === "blocked")?.payload?.kind).toBe("capability");
  });
});
