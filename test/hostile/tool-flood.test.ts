// A run that floods the board through its task tools (issue 50: 40 comments × 19 KB in 68 s slowed every
// seat's board) meets its budget (agent.budget.tools): the real Claude Code CLI posts comment after comment,
// the tool answers an error naming the budget past it, and the card counts what was used and refused. The
// close's attachments count against it too, whichever way they were asked for (an outcome file here).
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE } from "../helpers/agent-clis.js";
import { AGENT, runBridge, SEAT } from "../helpers/bridge.js";
import { Emu, type ShowDoc } from "../helpers/emulator.js";
import { blockedWhy } from "../helpers/jail-doors.js";
import { AnthropicMock } from "../helpers/model-mocks.js";

const RESULT = { ok: true, status: "ok", items: 1, metrics: {}, note: "n", artifacts: [], error: null };

let emu: Emu | undefined;
const mocks: AnthropicMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
  emu?.cleanup();
  emu = undefined;
});

type Tools = { comments: number; comment_bytes: number; refused: { comments: number; attachments: number } };
const toolsOf = (d: ShowDoc) => (d.runs.at(-1)?.metadata as { bridge?: { tools?: Tools } } | undefined)?.bridge?.tools;

describe("the task tools' budget, end to end", () => {
  it("a comment flood from the real Claude CLI: 3 posted, the rest answered with the budget's error; the card counts both", async () => {
    emu = await Emu.create();
    const body = "y".repeat(19 * 1024);
    const mock = await new AnthropicMock([
      { blocks: Array.from({ length: 8 }, (_, i) => ({ tool: "mcp__task__kanban_comment", input: { body: `flood ${i} ${body}` } })) },
      { blocks: [{ tool: "mcp__task__kanban_complete", input: { summary: "flooded", result: RESULT } }] },
      { blocks: [{ text: "Done." }] },
    ]).start();
    mocks.push(mock);
    const id = await emu.createTask("flood", { assignee: SEAT, body: "do it" });
    await (
      await runBridge(emu, {
        base: {
          agent: {
            kind: "claude-code",
            command: [CLAUDE],
            configDir: join(emu.dir, "claude"),
            env: { ANTHROPIC_BASE_URL: mock.baseUrl, ANTHROPIC_API_KEY: "sk-ant-api03-seat-key-0123456789", CLAUDE_CODE_MAX_RETRIES: "1" },
            budget: { tools: { comments: 3 } },
            killGraceSeconds: 2,
          },
        },
      })
    ).daemon.done;
    const d = await emu.show(id);
    expect(d.task.status, blockedWhy(d)).toBe("done");
    expect(d.comments.filter((c) => c.body.startsWith("flood "))).toHaveLength(3);
    // the model was told why, naming the budget
    expect(JSON.stringify(mock.mainBodies[1])).toContain("this run has posted its 3 comments (agent.budget.tools.comments)");
    expect(toolsOf(d)).toMatchObject({ comments: 3, refused: { comments: 5 } });
    expect(d.runs.at(-1)?.summary).toContain(
      "task tools past this run's budget (agent.budget.tools), refused: 5 comment(s) (comments: 3, commentBytes: 100000)",
    );
  }, 120_000);

  it("attachments asked for in an outcome file count too: past the budget the complete is stopped, naming it, nothing attached", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("deliver", { assignee: SEAT, body: "MODE:deliver" });
    await (await runBridge(emu, { base: { agent: { kind: "command", command: [process.execPath, AGENT], budget: { tools: { attachments: 0 } } } } })).daemon
      .done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("blocked");
    expect(blockedWhy(d)).toContain(
      "its deliverable report.md could not be preserved on the board: it is one of 1 files to attach, more than this run's 0 attachments (agent.budget.tools.attachments)",
    );
    expect(blockedWhy(d)).toContain("task tools past this run's budget (agent.budget.tools), refused: 1 attachment(s) (attachments: 0)");
    expect(d.events.filter((e) => e.kind === "attached")).toEqual([]);
  }, 60_000);
});
