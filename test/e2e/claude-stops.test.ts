// An operator stops a running real Claude Code (the pinned CLI, scripted model API) from the board: `reclaim` or
// `block` reaches the run through the watch before its next heartbeat (120 s out at the default TTL), the CLI is
// gone, and nothing of the run lands after (the lease is lost: no heartbeat, comment or close).
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE } from "../helpers/agent-clis.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { AnthropicMock } from "../helpers/model-mocks.js";
import { alive, untilHost } from "../helpers/steering.js";

let emu: Emu | undefined;
let mock: AnthropicMock | undefined;
afterEach(async () => {
  emu?.cleanup();
  emu = undefined;
  await mock?.close();
  mock = undefined;
});

async function stopped(action: "reclaim" | "block") {
  const e = await Emu.create();
  emu = e;
  const m = await new AnthropicMock([
    { blocks: [{ tool: "mcp__task__kanban_heartbeat", input: { note: "starting" } }] },
    { loop: [{ tool: "Bash", input: { command: "sleep 1", description: "work" } }], until: () => false, delayMs: 200, max: 1000 },
  ]).start();
  mock = m;
  const id = await e.createTask("long job", { assignee: SEAT, body: "Work until stopped." });
  const b = await runBridge(e, {
    once: false,
    base: {
      claim: {},
      heartbeat: {},
      discovery: { watch: true, sweepSeconds: 3600, debounceMs: 20 },
      agent: {
        kind: "claude-code",
        command: [CLAUDE],
        permissionMode: "bypassPermissions",
        configDir: join(e.dir, "claude"),
        killGraceSeconds: 2,
        env: { ANTHROPIC_BASE_URL: m.baseUrl, CLAUDE_CODE_MAX_RETRIES: "2", ANTHROPIC_API_KEY: "sk-ant-mock" },
      },
    },
  });
  try {
    const started = await b.monitor.next("run:started", (x) => x.taskId === id);
    await m.arrivals.arrived(3); // the CLI is at work (a heartbeat, then its tool loop)
    const beats = () => b.monitor.all("heartbeat", (x) => x.taskId === id).length;
    const before = beats();
    const r = action === "reclaim" ? await e.kanban(["reclaim", id, "--reason", "operator takes it back"]) : await e.kanban(["block", id, "operator stop"]);
    expect(r.code, r.stderr).toBe(0);
    const report = await b.monitor.closed(id);
    expect(report.decision).toBe("lost");
    // the watch line stopped it: no heartbeat of the seat's own cadence came between
    expect(beats()).toBe(before);
    // the CLI (and its jail) is gone
    await untilHost("the CLI to be gone", () => !alive(started.pid), 10_000);
    const doc = await e.show(id);
    const cut = doc.events.findIndex((x) => x.kind === (action === "reclaim" ? "reclaimed" : "blocked"));
    const after = doc.events.slice(cut + 1).filter((x) => x.run_id === report.runId || ["heartbeat", "completed", "commented"].includes(x.kind));
    expect(after, JSON.stringify(after)).toEqual([]);
    return doc;
  } finally {
    await b.daemon.stop();
    await b.daemon.done.catch(() => undefined);
  }
}

describe("an operator's stop reaches a running Claude Code", () => {
  it("reclaim: the run ends at the watch's line, nothing of it lands after", async () => {
    const doc = await stopped("reclaim");
    expect(doc.runs[0]?.outcome).toBe("reclaimed");
  }, 120_000);

  it("block: the run ends at the watch's line, the task stays blocked by the operator", async () => {
    const doc = await stopped("block");
    expect(doc.task.status).toBe("blocked");
  }, 120_000);
});
