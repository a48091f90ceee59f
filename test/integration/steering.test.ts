// The board talks to a running agent (emulator lane; the real lane is test/real/steering.test.ts): an
// operator's reclaim or block stops it at once, at the default TTL and heartbeat; an operator's comment
// reaches it mid-run — through the watch, or at the next heartbeat when the watch is off.
import { describe, expect, it } from "vitest";
import { AGENT, runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { liveBridge, noteToInbox, operatorStops } from "../helpers/steering.js";

describe.concurrent("a running agent hears the board", () => {
  it("an operator's reclaim stops the agent (no heartbeat needed) and nothing of its run lands after", async () => {
    const e = await Emu.create();
    try {
      const { report } = await operatorStops(e, "reclaim");
      expect(report.close).not.toBe("applied");
    } finally {
      e.cleanup();
    }
  });

  it("an operator's block stops the agent and nothing of its run lands after", async () => {
    const e = await Emu.create();
    try {
      const { doc } = await operatorStops(e, "block");
      expect(doc.task.status).toBe("blocked");
    } finally {
      e.cleanup();
    }
  });

  it("a comment reaches a command agent's inbox through the watch, once; the seat's own never", async () => {
    const e = await Emu.create();
    try {
      const { b } = await noteToInbox(e, { watch: true, base: { http: { port: 0 } } });
      const text = await b.built.metrics?.registry.metrics();
      expect(text).toMatch(/hkb_notes_delivered_total\{board="bridge",agent="command"\} 1/);
      expect(text).toMatch(/hkb_note_delivery_seconds_count\{board="bridge",agent="command"\} 1/);
    } finally {
      e.cleanup();
    }
  });

  it("with the watch off, the note arrives at the next heartbeat", async () => {
    const e = await Emu.create();
    try {
      await noteToInbox(e, { watch: false, base: { claim: { ttlSeconds: 120, safetySeconds: 10 }, heartbeat: { intervalSeconds: 1 } } });
    } finally {
      e.cleanup();
    }
  });
});

describe("notes and continuity", () => {
  it("a note handed to a cut run is not repeated by the next run's continuation prompt; a later comment is", async () => {
    const e = await Emu.create();
    try {
      const id = await e.createTask("steered and cut", { assignee: SEAT, body: "MODE:steer-resume" });
      const b = await liveBridge(e, { base: { shutdown: { graceSeconds: 1 } } });
      await b.monitor.phase(id, "working");
      expect((await e.kanban(["comment", id, "FIRST-NOTE seen mid-run"])).code).toBe(0);
      await b.monitor.next("run:notes", (n) => n.taskId === id);
      await b.daemon.stop();
      await b.daemon.done.catch(() => undefined);
      // the claim is kept for the restart, which continues the run (no unblock: nobody is asked)
      expect((await e.show(id)).task.status).toBe("running");
      expect((await e.kanban(["comment", id, "SECOND-NOTE after the cut"])).code).toBe(0);
      const again = await runBridge(e, { base: { agent: { kind: "command", command: [process.execPath, AGENT], killGraceSeconds: 1 } } });
      await again.daemon.done;
      const doc = await e.show(id);
      expect(doc.task.status).toBe("done");
      const since = String((doc.runs.at(-1)?.metadata as { note?: string } | null)?.note ?? "");
      expect(since).toContain("SECOND-NOTE after the cut");
      expect(since).not.toContain("FIRST-NOTE");
    } finally {
      e.cleanup();
    }
  });
});
