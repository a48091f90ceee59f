// The seat's key on the books (issue 50): the jail holds a placeholder and the proxy puts the real key into
// every request of the API route — so any process of the jail can spend it, not only the CLI. Every such
// request is counted by the proxy; a run whose proxy counted more than its CLI reported says so on the card,
// and the budget counts the larger figure. The real Claude Code CLI against the scripted model server; its
// Bash tool is the process that spends the key off the CLI's books.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE } from "../helpers/agent-clis.js";
import { probeBwrap } from "../../src/jail/policy.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu, type ShowDoc } from "../helpers/emulator.js";
import { blockedWhy } from "../helpers/jail-doors.js";
import { AnthropicMock, type ScriptedTurn } from "../helpers/model-mocks.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;
const RESULT = { ok: true, status: "ok", items: 1, metrics: {}, note: "n", artifacts: [], error: null };

let emu: Emu | undefined;
const mocks: AnthropicMock[] = [];
afterEach(async () => {
  await Promise.all(mocks.splice(0).map((m) => m.close()));
  emu?.cleanup();
  emu = undefined;
});

/** Three requests to the model API with the placeholder key, from a process of the jail (no tools: the mock answers "ok", 100 + 20 tokens). */
const SPEND = `node -e 'const h=require("http");const u=new URL(process.env.ANTHROPIC_BASE_URL+"/v1/messages");let n=0;const go=()=>{const q=h.request(u,{method:"POST",headers:{"x-api-key":process.env.ANTHROPIC_API_KEY,"content-type":"application/json","anthropic-version":"2023-06-01"}},(r)=>{r.resume();r.on("end",()=>{n+=1;if(n<3)go();else console.log("SPENT "+n)})});q.end(JSON.stringify({model:"m",max_tokens:10,messages:[{role:"user",content:"off the books"}]}))};go()'`;

type Api = { requests: number; tokens: { input: number; output: number }; beyond_report?: boolean };
const bridgeOf = (d: ShowDoc) => (d.runs.at(-1)?.metadata as { bridge?: { api?: Api; tokens?: { input: number; output: number } } } | undefined)?.bridge;

async function run(turns: ScriptedTurn[], budget?: Record<string, unknown>): Promise<{ doc: ShowDoc; mock: AnthropicMock }> {
  emu = await Emu.create();
  const mock = await new AnthropicMock(turns).start();
  mocks.push(mock);
  const id = await emu.createTask("books", { assignee: SEAT, body: "do it" });
  await (
    await runBridge(emu, {
      base: {
        agent: {
          kind: "claude-code",
          command: [CLAUDE],
          configDir: join(emu.dir, "claude"),
          allowedTools: ["Bash"],
          env: { ANTHROPIC_BASE_URL: mock.baseUrl, ANTHROPIC_API_KEY: "sk-ant-api03-seat-key-0123456789", CLAUDE_CODE_MAX_RETRIES: "1" },
          isolation: "bwrap",
          killGraceSeconds: 2,
          ...(budget ? { budget } : {}),
        },
      },
    })
  ).daemon.done;
  return { doc: await emu.show(id), mock };
}

const complete: ScriptedTurn[] = [
  { blocks: [{ tool: "mcp__task__kanban_complete", input: { summary: "did it", result: RESULT } }] },
  { blocks: [{ text: "Done." }] },
];

describe.skipIf(!BWRAP && !process.env.HKB_REQUIRE_BWRAP)("the seat's key on the books", () => {
  it("a clean run: every request of the API route counted, no more than the CLI reported", async () => {
    const { doc } = await run(complete);
    expect(doc.task.status, blockedWhy(doc)).toBe("done");
    const b = bridgeOf(doc);
    expect(b?.api?.requests).toBeGreaterThanOrEqual(2);
    expect(b?.api?.tokens.input).toBeGreaterThan(0);
    expect(b?.api?.beyond_report, JSON.stringify(b)).toBeUndefined();
    expect(doc.runs.at(-1)?.summary).not.toContain("more than the agent reported");
  }, 120_000);

  it("a process of the jail spending the key is counted: the card says the proxy saw more than the CLI reported", async () => {
    const { doc, mock } = await run([{ blocks: [{ tool: "Bash", input: { command: SPEND, description: "spend" } }] }, ...complete]);
    expect(doc.task.status, blockedWhy(doc)).toBe("done");
    expect(JSON.stringify(mock.mainBodies[1])).toContain("SPENT 3");
    const b = bridgeOf(doc);
    expect(b?.api?.beyond_report).toBe(true);
    expect(b?.api?.requests).toBeGreaterThanOrEqual(3 + 3);
    expect(doc.runs.at(-1)?.summary).toMatch(
      /the seat's API through the run's proxy: \d+ request\(s\), \d+ input \/ \d+ output tokens — more than the agent reported \d+ input/,
    );
  }, 120_000);

  it("the budget counts the proxy's figure: a run under its CLI's own report but over by the proxy's count is stopped, naming the budget", async () => {
    const { doc } = await run(
      [
        { blocks: [{ tool: "Bash", input: { command: SPEND, description: "spend" } }] },
        { blocks: [{ tool: "Bash", input: { command: SPEND, description: "spend" } }] },
        ...complete,
      ],
      { task: { tokens: 600 } },
    );
    expect(doc.task.status).toBe("blocked");
    expect(blockedWhy(doc)).toMatch(/this task's budget \(agent\.budget\.task, summed over its runs\): spent \d+ tokens, budget 600 tokens/);
    expect(blockedWhy(doc)).toMatch(/ · api \d+ requests?, \d+ input \/ \d+ output tokens · seat /);
  }, 120_000);
});
