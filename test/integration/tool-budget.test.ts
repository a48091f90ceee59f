// The task tools' per-run budget (issue 50: one run posted 40 comments × 19 KB in 68 s and slowed every
// seat's board): past its comments, their bytes, heartbeats a minute or the files a complete may attach,
// a tool answers an error naming the budget (agent.budget.tools) — over real MCP, on an emulator lease.
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { acquire } from "../../src/lease/acquire.js";
import { Redactor } from "../../src/result/redact.js";
import { DEFAULT_TOOL_LIMITS, type ToolLimits, ToolBudget } from "../../src/tools/budget.js";
import { ToolHost } from "../../src/tools/host.js";
import { ToolSocketServer } from "../../src/tools/socket.js";
import { fencedOf } from "../contract/board-contract.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";

let emu: Emu | undefined;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  emu?.cleanup();
  emu = undefined;
});

type Answer = { content: { type: string; text: string }[]; isError?: boolean };

/** A run's tools over MCP with a budget and a clock the test moves; the task's id. */
async function tools(limits: Partial<ToolLimits>) {
  emu = await Emu.create();
  const e = emu;
  const id = await e.createTask("flood", { assignee: "s" });
  const board = e.board({ author: "tool-seat" });
  const { lease } = await acquire(board, id, 600);
  const clock = { now: 1_000_000 };
  const budget = new ToolBudget({ ...DEFAULT_TOOL_LIMITS, ...limits }, () => clock.now);
  const host = new ToolHost({ fenced: fencedOf(board, lease), redactor: new Redactor(), budget });
  const server = new ToolSocketServer(join(e.dir, "tools.sock"), host);
  await server.listen();
  const client = new Client({ name: "test", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI_BIN, "task-tools"],
      env: { PATH: process.env.PATH ?? "", HERMES_BRIDGE_TOOLS_SOCKET: server.path, HERMES_BRIDGE_TOOLS_TOKEN: server.token },
    }),
  );
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Answer;
  return { e, id, clock, budget, call };
}

const BIG = "x".repeat(19 * 1024);

describe("the task tools' budget for one run", () => {
  it("comments: past their number the tool answers an error naming agent.budget.tools.comments; nothing more reaches the board", async () => {
    const { e, id, budget, call } = await tools({ comments: 5 });
    const answers: Answer[] = [];
    for (let i = 0; i < 12; i += 1) answers.push(await call("kanban_comment", { body: `${i}:${BIG}` }));
    expect(answers.filter((a) => !a.isError)).toHaveLength(5);
    expect(answers[5]?.isError).toBe(true);
    expect(answers[5]?.content[0]?.text).toMatch(/kanban_comment: this run has posted its 5 comments \(agent\.budget\.tools\.comments\): nothing was posted/);
    expect((await e.show(id)).comments).toHaveLength(5);
    expect(budget.counts()).toMatchObject({ comments: 5, commentBytes: 5 * (BIG.length + 2), refused: { comments: 7 } });
  });

  it("comment bytes: a comment that would pass the run's bytes is refused, naming agent.budget.tools.commentBytes and what is left", async () => {
    const { e, id, call } = await tools({ commentBytes: 30_000 });
    expect((await call("kanban_comment", { body: BIG })).isError).toBeFalsy();
    const over = await call("kanban_comment", { body: BIG });
    expect(over.isError).toBe(true);
    expect(over.content[0]?.text).toMatch(/would take this run's comments past 30000 bytes \(agent\.budget\.tools\.commentBytes; \d+ left\)/);
    // a short one still fits
    expect((await call("kanban_comment", { body: "short and to the point" })).isError).toBeFalsy();
    expect((await e.show(id)).comments).toHaveLength(2);
  });

  it("heartbeats: at most N in any minute (agent.budget.tools.heartbeatsPerMinute); the note is kept; a minute later one is taken again", async () => {
    const { e, id, clock, call } = await tools({ heartbeatsPerMinute: 3 });
    for (let i = 0; i < 3; i += 1) {
      expect((await call("kanban_heartbeat", { note: `step ${i}` })).isError).toBeFalsy();
      clock.now += 1000;
    }
    const over = await call("kanban_heartbeat", { note: "step 3" });
    expect(over.isError).toBe(true);
    expect(over.content[0]?.text).toMatch(
      /at most 3 heartbeats a minute \(agent\.budget\.tools\.heartbeatsPerMinute\): not posted, kept as the run's progress note .*the next one is taken in 57 s/,
    );
    clock.now += 58_000;
    expect((await call("kanban_heartbeat", { note: "step 4" })).isError).toBeFalsy();
    expect((await e.show(id)).events.filter((x) => x.kind === "heartbeat").map((x) => x.payload?.note)).toEqual(["step 0", "step 1", "step 2", "step 4"]);
  });

  it("attachments: a complete naming more files than the run may attach is refused (agent.budget.tools.attachments), to be asked again with fewer", async () => {
    const { call } = await tools({ attachments: 2 });
    const result = (n: number) => ({
      ok: true,
      status: "ok",
      items: 1,
      artifacts: Array.from({ length: n }, (_, i) => ({ type: "file", label: `f${i}`, path: `out/f${i}.txt` })),
    });
    const over = await call("kanban_complete", { summary: "done", result: result(3) });
    expect(over.isError).toBe(true);
    expect(over.content[0]?.text).toMatch(
      /kanban_complete: 3 files to attach, more than this run's 2 attachments \(agent\.budget\.tools\.attachments\) — name fewer files/,
    );
    expect((await call("kanban_complete", { summary: "done", result: result(2) })).content[0]?.text).toMatch(/completion recorded/);
  });
});
