// Every kind continues after a crash (issue 49 row 2): the local-LLM loop runs inside the bridge, so a SIGKILLed
// seat takes it down; its run was journaled at its start all the same (as the bridge's own process), and the
// restarted seat continues it in the same run from its saved history — done, nothing blocked, one line on the card.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SEAT } from "../helpers/bridge.js";
import { startDaemon, started, stopDaemons } from "../helpers/daemon-process.js";
import { Emu } from "../helpers/emulator.js";
import { OpenAiMock, call, finish } from "../helpers/openai-mock.js";

const GOOD = { ok: true, status: "ok", items: 1, metrics: {}, note: "finished after the crash", artifacts: [], error: null };
let emu: Emu | undefined;
let mock: OpenAiMock | undefined;
afterEach(async () => {
  stopDaemons();
  emu?.cleanup();
  emu = undefined;
  await mock?.close();
  mock = undefined;
});

describe("a SIGKILLed local-LLM seat", () => {
  it("continues its run when it is back, from the loop's saved history: done with no human, one line on the card", async () => {
    emu = await Emu.create();
    const m = await OpenAiMock.start([{ chunks: [call(0, "c1", "kanban_heartbeat", '{"note":"step one done"}'), finish("tool_calls")] }, { hangAfter: [] }]);
    mock = m;
    const id = await emu.createTask("local job", { assignee: SEAT, body: "Do it." });
    const cfg = join(emu.dir, "c.yaml");
    writeFileSync(cfg, `agent: {kind: local-llm, baseUrl: "${m.baseUrl}", model: mock-coder}\n`);
    const first = startDaemon(emu, ["--ttl", "900"], cfg, {}, true);
    await first.waitFor(started);
    // the first step is done (its history saved) and the loop waits on its next request
    await m.arrivals.arrived(2);
    process.kill(first.pid, "SIGKILL");
    await first.result;
    m.push({ chunks: [call(0, "c2", "kanban_complete", JSON.stringify({ summary: "Finished after the crash.", result: GOOD })), finish("tool_calls")] });
    const before = m.requests.length;
    const second = startDaemon(emu, ["--once", "--ttl", "900"], cfg, {}, true);
    const cont = await second.waitFor((l) => l.msg === "continuing a run interrupted by a bridge restart, in the same run");
    expect(cont.why).toBe("a crash (its agent died with the bridge)");
    expect((await second.result).exitCode).toBe(0);
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect(d.runs).toHaveLength(1);
    expect(d.events.filter((e) => e.kind === "blocked")).toEqual([]);
    // the continued loop's first request carries the first run's step
    expect(JSON.stringify(m.requests[before]?.messages)).toContain("step one done");
    expect(d.events.map((e) => String(e.payload?.note ?? ""))).toContainEqual(
      expect.stringMatching(/continuing this run after a crash \(its agent died with the bridge\); the agent resumes its session/),
    );
  }, 120_000);
});
