// The AgentAdapter conformance suite: every adapter passes it — success, block, crash, a hard stop, a
// polite stop (wrap-up), the silence watchdog — and every run ends with exactly one `finished` event,
// last. Drives the adapter directly with a real ToolHost (on an emulator lease) when it uses tools.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentAdapter, AgentEvent, OutcomeRequest } from "../../src/agents/port.js";
import { Redactor } from "../../src/result/redact.js";
import { ToolHost } from "../../src/tools/host.js";
import { ToolSocketServer } from "../../src/tools/socket.js";
import { newSocketPath } from "../../src/tools/socket-path.js";
import { Emu } from "../helpers/emulator.js";
import { acquire } from "../../src/lease/acquire.js";
import { fencedOf } from "./board-contract.js";

export type Scenario = "success" | "block" | "crash" | "hang" | "stall";

export interface ConformanceHarness {
  /** An adapter (and its cleanup) that behaves as the scenario says; `stallMs` for its watchdog. */
  make(s: Scenario, dir: string, o: { stallMs: number }): Promise<{ agent: AgentAdapter; prompt: string; cleanup?: () => Promise<void> }>;
}

type Stop = { kind: "none" } | { kind: "hard" } | { kind: "polite" };

async function drive(h: ConformanceHarness, s: Scenario, stop: Stop = { kind: "none" }, stallMs = 0) {
  const emu = await Emu.create();
  try {
    const id = await emu.createTask(`conformance ${s}`, { assignee: "s", body: `MODE:${s === "success" ? "complete" : s}` });
    const board = emu.board();
    const { lease, detail } = await acquire(board, id, 600);
    const runDir = join(emu.dir, "run");
    const sessionDir = join(emu.dir, "session");
    mkdirSync(runDir, { recursive: true });
    mkdirSync(sessionDir, { recursive: true });
    const { writeContextFile } = await import("../../src/run/prepare/prompt.js");
    await writeContextFile(join(runDir, "context.json"), detail ?? (await board.show(id)), "", lease.runId);
    const made = await h.make(s, emu.dir, { stallMs });
    const host = new ToolHost({ fenced: fencedOf(board, lease), redactor: new Redactor() });
    const server = made.agent.usesTools ? new ToolSocketServer(newSocketPath(process.env), host) : null;
    await server?.listen();
    const ac = new AbortController();
    const wrap = new AbortController();
    const events: AgentEvent[] = [];
    let stopping = false;
    for await (const e of made.agent.run({
      taskId: id,
      runId: lease.runId,
      workspace: lease.workspace,
      prompt: made.prompt,
      contextFile: join(runDir, "context.json"),
      resultFile: join(runDir, "outcome.json"),
      runDir,
      outputDir: runDir,
      sessionDir,
      signal: ac.signal,
      wrapUp: wrap.signal,
      ...(server ? { tools: { socketPath: server.path, token: server.token, call: (n: string, a: unknown) => host.call(n, a) } } : {}),
    })) {
      events.push(e);
      // Stop shortly after the agent is up (the daemon's signals on shutdown, a lost lease, the deadline).
      if (stop.kind !== "none" && e.type === "started" && !stopping) {
        stopping = true;
        setTimeout(() => (stop.kind === "hard" ? ac : wrap).abort(new Error("test stop")), 300);
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

function endsWithOneFinished(events: AgentEvent[]): void {
  expect(events.filter((e) => e.type === "finished")).toHaveLength(1);
  expect(events.at(-1)?.type).toBe("finished");
}

export function agentConformance(name: string, h: ConformanceHarness, o: { politeStops?: boolean } = {}): void {
  describe(`AgentAdapter conformance: ${name}`, () => {
    it("success: an outcome asking to complete, then finished cleanly", async () => {
      const r = await drive(h, "success");
      expect(r.outcome?.kind).toBe("complete");
      expect(r.finished).toMatchObject({ reason: "exited", signal: null });
      endsWithOneFinished(r.events);
    });
    it("block: an outcome asking to block with the template", async () => {
      const r = await drive(h, "block");
      expect(r.outcome?.kind).toBe("block");
      endsWithOneFinished(r.events);
    });
    it("crash: no outcome, and a finish that is not a clean exit 0 (or a named failure)", async () => {
      const r = await drive(h, "crash");
      expect(r.outcome).toBeNull();
      const failed = r.events.some((e) => e.type === "failed");
      expect(failed || (r.finished?.exitCode ?? 0) !== 0).toBe(true);
      endsWithOneFinished(r.events);
    });
    it("hang: the hard stop ends it promptly and says so", async () => {
      const r = await drive(h, "hang", { kind: "hard" });
      expect(r.finished?.reason).toBe("aborted");
      endsWithOneFinished(r.events);
    });
    if (o.politeStops !== false)
      it("wrap-up: the polite stop alone ends a working agent", async () => {
        const r = await drive(h, "hang", { kind: "polite" });
        expect(r.finished).toBeDefined();
        expect(r.outcome).toBeNull();
        endsWithOneFinished(r.events);
      });
    it("stall: no event for stallMs stops it as stalled", async () => {
      const r = await drive(h, "stall", { kind: "none" }, 700);
      expect(r.finished?.reason).toBe("stalled");
      endsWithOneFinished(r.events);
    });
  });
}
