// The AgentAdapter conformance suite: every adapter passes it (success, block, crash, hang, abort).
// Drives the adapter directly with a real ToolHost (on an emulator lease) when it uses tools.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentAdapter, AgentEvent, OutcomeRequest } from "../../src/agents/port.js";
import { Redactor } from "../../src/result/redact.js";
import { ToolHost } from "../../src/tools/host.js";
import { ToolSocketServer } from "../../src/tools/socket.js";
import { Emu } from "../helpers/emulator.js";

export type Scenario = "success" | "block" | "crash" | "hang";

export interface ConformanceHarness {
  /** An adapter (and its cleanup) that behaves as the scenario says. */
  make(s: Scenario, dir: string): Promise<{ agent: AgentAdapter; prompt: string; cleanup?: () => Promise<void> }>;
}

async function drive(h: ConformanceHarness, s: Scenario, abortAfterStart = false) {
  const emu = await Emu.create();
  try {
    const id = await emu.createTask(`conformance ${s}`, { assignee: "s", body: `MODE:${s === "success" ? "complete" : s}` });
    const board = emu.board();
    const { lease, detail } = await board.claim(id, 600);
    const runDir = join(emu.dir, "run");
    mkdirSync(runDir, { recursive: true });
    const { writeContextFile } = await import("../../src/run/prompt.js");
    await writeContextFile(join(runDir, "context.json"), detail ?? (await board.show(id)), "", lease.runId);
    const made = await h.make(s, emu.dir);
    const host = new ToolHost({ board, lease, author: "s", redactor: new Redactor() });
    const server = made.agent.usesTools ? new ToolSocketServer(join(runDir, "tools.sock"), host) : null;
    await server?.listen();
    const ac = new AbortController();
    const events: AgentEvent[] = [];
    let aborting = false;
    for await (const e of made.agent.run({
      taskId: id,
      runId: lease.runId,
      workspace: lease.workspace,
      prompt: made.prompt,
      contextFile: join(runDir, "context.json"),
      resultFile: join(runDir, "outcome.json"),
      runDir,
      signal: ac.signal,
      ...(server ? { tools: { socketPath: server.path, token: server.token, call: (n: string, a: unknown) => host.call(n, a) } } : {}),
    })) {
      events.push(e);
      // Abort shortly after the agent is up (the signal a daemon sends on shutdown or a lost lease).
      if (abortAfterStart && e.type === "started" && !aborting) {
        aborting = true;
        setTimeout(() => ac.abort(new Error("test abort")), 300);
      }
    }
    await server?.close();
    await made.cleanup?.();
    const outcome = (events.find((e) => e.type === "outcome") as { request: OutcomeRequest } | undefined)?.request ?? host.request;
    return { events, outcome, finished: events.find((e) => e.type === "finished") as Extract<AgentEvent, { type: "finished" }> | undefined };
  } finally {
    emu.cleanup();
  }
}

export function agentConformance(name: string, h: ConformanceHarness): void {
  describe(`AgentAdapter conformance: ${name}`, () => {
    it("success: an outcome asking to complete, then finished cleanly", async () => {
      const r = await drive(h, "success");
      expect(r.outcome?.kind).toBe("complete");
      expect(r.finished).toMatchObject({ reason: "exited", signal: null });
      expect(r.events.at(-1)?.type).toBe("finished");
    });
    it("block: an outcome asking to block with the template", async () => {
      const r = await drive(h, "block");
      expect(r.outcome?.kind).toBe("block");
    });
    it("crash: no outcome, and a finish that is not a clean exit 0 (or a named failure)", async () => {
      const r = await drive(h, "crash");
      expect(r.outcome).toBeNull();
      const failed = r.events.some((e) => e.type === "failed");
      expect(failed || (r.finished?.exitCode ?? 0) !== 0).toBe(true);
    });
    it("hang: aborting the signal stops it promptly and says so", async () => {
      const r = await drive(h, "hang", true);
      expect(r.finished?.reason).toBe("aborted");
    });
  });
}
