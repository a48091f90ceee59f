// The daemon on the Hermes users run next (the emulator as a Hermes with named claims: named claims, renewal, guarded
// closes, the live-claim fence, reclaims counted as failures), read from --help like any other board:
// a 40-minute task on a 15-minute TTL completes in one run through renewals (0.20 loses it to the
// sweep), a claim whose acknowledgement was lost is replayed and worked once, a foreign actor cannot
// close the seat's task, the core slice (complete, block, an operator's stop, a note) runs unchanged.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hasAllFields } from "../../src/result/template.js";
import { type Bridge, runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { noteToInbox, operatorStops } from "../helpers/steering.js";

const UPSTREAM = { HERMES_EMULATOR_COMPAT: "named-claims" };

async function onBoard<T>(env: Record<string, string>, fn: (emu: Emu) => Promise<T>): Promise<T> {
  const emu = await Emu.create("bridge", { env });
  try {
    return await fn(emu);
  } finally {
    emu.cleanup();
  }
}

/**
 * 40 minutes of board time on a 15-minute TTL, compressed: after each heartbeat the board's clock moves
 * 5 minutes and a gateway sweep runs; at 40 minutes the agent is let finish.
 */
async function fortyMinutes(emu: Emu): Promise<{ b: Bridge; id: string }> {
  const id = await emu.createTask("long job", { assignee: SEAT, body: "MODE:wait-file", maxRuntime: "40m" });
  const b = await runBridge(emu, { once: false, base: { claim: { ttlSeconds: 900 }, heartbeat: { intervalSeconds: 1 } } });
  let offset = 0;
  let sweeping = Promise.resolve();
  b.daemon.on("heartbeat", ({ taskId }) => {
    if (taskId !== id) return;
    sweeping = sweeping.then(async () => {
      if (offset >= 2400) return;
      offset += 300;
      emu.advance(offset);
      await emu.kanban(["dispatch", "--json"]);
      const ws = (await emu.show(id)).task.workspace_path;
      if (offset >= 2400 && ws && existsSync(ws)) writeFileSync(join(ws, "go"), "");
    });
  });
  const closed = new Promise<void>((r) => b.daemon.on("run:closed", (rep) => rep.taskId === id && r()));
  await closed;
  await sweeping;
  await b.daemon.stop();
  return { b, id };
}

describe.concurrent("named claims: renewals", () => {
  it("a 40-minute task on a 15-minute TTL completes in one run: every heartbeat renews the named claim", () =>
    onBoard(UPSTREAM, async (emu) => {
      const { b, id } = await fortyMinutes(emu);
      const d = await emu.show(id);
      expect(d.task.status).toBe("done");
      expect(d.runs.map((r) => r.outcome)).toEqual(["completed"]);
      expect(d.events.filter((e) => e.kind === "claimed").map((e) => Number(e.payload?.expires) - e.created_at)).toEqual([900]);
      expect(b.reports).toMatchObject([{ decision: "complete", close: "applied" }]);
      const beats = d.events.filter((e) => e.kind === "heartbeat");
      expect(beats.length).toBeGreaterThanOrEqual(8);
      expect(beats.every((e) => String(e.payload?.actor).startsWith(`hermes-bridge:${SEAT}:`))).toBe(true);
    }));

  it("on 0.20.0 the same task needs its claim given back and taken again with a 41-minute TTL: no renewal exists", () =>
    onBoard({}, async (emu) => {
      const { b, id } = await fortyMinutes(emu);
      const d = await emu.show(id);
      expect(d.runs.map((r) => r.outcome)).toEqual(["reclaimed", "completed"]);
      const claims = d.events.filter((e) => e.kind === "claimed").map((e) => Number(e.payload?.expires) - e.created_at);
      expect(claims).toEqual([900, 2460]);
      expect(b.reports).toMatchObject([{ decision: "complete", close: "applied" }]);
    }));
});

describe("named claims: claims and guards", () => {
  it("a claim whose acknowledgement was lost is replayed with its claimer: worked once, one run", () =>
    onBoard(UPSTREAM, async (emu) => {
      const id = await emu.createTask("lost ack", { assignee: SEAT, body: "MODE:complete" });
      const b = await runBridge(emu, { faults: "claim:crash-after:1", base: { http: { port: 0 } } });
      await b.daemon.done;
      const d = await emu.show(id);
      expect(d.task.status).toBe("done");
      expect(d.runs).toHaveLength(1);
      expect(d.events.filter((e) => e.kind === "claimed")).toHaveLength(1);
      // The first claim's answer was lost (exit 1 after it took effect); the replay answered: ours, and a clean run.
      const calls = await b.built.metrics?.registry.getSingleMetricAsString("hkb_cli_calls_total");
      expect(calls).toMatch(/verb="claim",exit_code="1"[^}]*} 1\n/);
      expect(calls).toMatch(/verb="claim",exit_code="0"[^}]*} 1\n/);
      expect(b.reports[0]).toMatchObject({ decision: "complete", close: "applied" });
    }));

  it("a foreign actor cannot close the seat's task (live-claim fence); the seat's own close lands", () =>
    onBoard(UPSTREAM, async (emu) => {
      const id = await emu.createTask("held", { assignee: SEAT, body: "MODE:wait-file" });
      const b = await runBridge(emu, { once: false });
      try {
        const closed = b.monitor.closed(id);
        await b.monitor.phase(id, "working");
        const stolen = await emu.kanban(["complete", id, "--result", "stolen", "--claimer", "codex:other"]);
        expect(stolen.code).toBe(1);
        expect(stolen.stderr).toMatch(/live claim held by another actor \(claimed by hermes-bridge:test-seat:/);
        const blocked = await emu.kanban(["block", id, "not yours"]);
        expect(blocked.code).toBe(1);
        const ws = (await emu.show(id)).task.workspace_path;
        writeFileSync(join(ws ?? "", "go"), "");
        await closed;
      } finally {
        await b.daemon.stop();
      }
      const d = await emu.show(id);
      expect(d.task.status).toBe("done");
      expect(d.task).not.toMatchObject({ result: "stolen" });
      expect(d.comments).toEqual([]);
      expect(String((d.runs[0] as unknown as { closed_by?: string }).closed_by)).toMatch(/^hermes-bridge:test-seat:[0-9a-f]{12}$/);
    }));

  it("a task another named claimer holds is never touched: nothing of the seat's lands", () =>
    onBoard(UPSTREAM, async (emu) => {
      const id = await emu.createTask("theirs", { assignee: SEAT, body: "MODE:complete" });
      expect((await emu.kanban(["claim", id, "--claimer", "codex:other"])).code).toBe(0);
      const b = await runBridge(emu);
      await b.daemon.done;
      const d = await emu.show(id);
      expect(b.reports).toEqual([]);
      expect(d.events.map((e) => e.kind)).toEqual(["created", "claimed"]);
      expect(d.comments).toEqual([]);
    }));
});

describe.concurrent("named claims: the daemon slice", () => {
  it("claim → run → complete with the common result", () =>
    onBoard(UPSTREAM, async (emu) => {
      const id = await emu.createTask("work", { assignee: SEAT, body: "MODE:complete" });
      await (await runBridge(emu)).daemon.done;
      const d = await emu.show(id);
      expect(d.task.status).toBe("done");
      expect(d.runs[0]?.metadata).toMatchObject({ ok: true, items: 3, bridge: { agent: "command" } });
    }));

  it("claim → run → block: the templated reason and the kind land (guarded, by the holder)", () =>
    onBoard(UPSTREAM, async (emu) => {
      const id = await emu.createTask("stuck", { assignee: SEAT, body: "MODE:block" });
      await (await runBridge(emu)).daemon.done;
      const d = await emu.show(id);
      expect(d.task.status).toBe("blocked");
      const ev = d.events.findLast((e) => e.kind === "blocked");
      expect(hasAllFields(String(ev?.payload?.reason))).toBe(true);
      expect(ev?.payload?.kind).toBe("needs_input");
    }));

  it("an operator's reclaim stops the agent at once; nothing of its run lands after", () => onBoard(UPSTREAM, (emu) => operatorStops(emu, "reclaim")));

  it("an operator's forced block stops the agent at once (a plain block is fenced off by the live claim)", () =>
    onBoard(UPSTREAM, (emu) => operatorStops(emu, "block")));

  it("an operator's note reaches the agent through the watch", () => onBoard(UPSTREAM, (emu) => noteToInbox(emu, { watch: true })));
});
