// Continuity with the real Codex CLI (pinned dev dep) and the local-LLM loop, against scripted model
// APIs on 127.0.0.1: a run cut at its deadline is resumed on the next claim (the first request of the
// second run carries the first run) and completes.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SEAT } from "../helpers/bridge.js";
import { CODEX, GOOD, once, PART_ONE, PART_TWO, ROOMY, reasonOf, textOf } from "../helpers/continuity.js";
import { Emu } from "../helpers/emulator.js";
import { ResponsesMock } from "../helpers/model-mocks.js";
import { OpenAiMock, call, finish } from "../helpers/openai-mock.js";

let emu: Emu;
let mocks: { close(): Promise<void> }[] = [];
afterEach(async () => {
  emu?.cleanup();
  for (const m of mocks) await m.close();
  mocks = [];
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
    await once(emu, { agent });
    const cut = await emu.show(id);
    expect(reasonOf(cut)).toMatch(/did not finish before its deadline/);
    const thread = /session: (\S+) —/.exec(reasonOf(cut))?.[1];
    expect(thread).toBeDefined();
    await emu.kanban(["unblock", id]);
    mock.push(...PART_TWO);
    const before = mock.mainBodies.length;
    await once(emu, { agent, ...ROOMY });
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
    await once(emu, { agent });
    expect(reasonOf(await emu.show(id))).toMatch(/session: local-\S+ — unblock to continue/);
    await emu.kanban(["unblock", "--reason", "continue please", id]);
    mock.push({ chunks: [call(0, "c2", "kanban_complete", good), finish("tool_calls")] });
    const before = mock.requests.length;
    await once(emu, { agent, ...ROOMY });
    expect((await emu.show(id)).task.status).toBe("done");
    const first = JSON.stringify(mock.requests[before]?.messages);
    expect(first).toContain("step one done");
    expect(first).toContain("continue please");
  }, 120_000);
});
