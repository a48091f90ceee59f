// The bridge on Hermes 0.21.6 — the emulator's 0.21.6 mode (HERMES_EMULATOR_COMPAT=0.21.6, src/emulator/
// verbs/line0216.ts after NousResearch/hermes-agent's kanban parser at ee272988) — and what a board does to
// a task around the bridge: a corrupt board database (the seat pauses the board, alerts once naming the
// repair, holds its closes and resumes when the board answers), a done task reopened, a running task
// pulled into review by someone else, a complete that would land on a blocked task (upstream #101785).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { WebhookServer } from "../helpers/webhook.js";
import { LeaseLost } from "../../src/errors/board.js";
import { fencedView } from "../../src/lease/fenced.js";
import { systemClock } from "../../src/time/clock.js";

const COMPAT = { HERMES_EMULATOR_COMPAT: "0.21.6" };

let emu: Emu | undefined;
let hook: WebhookServer | undefined;
afterEach(async () => {
  emu?.cleanup();
  emu = undefined;
  await hook?.close();
  hook = undefined;
});
const board = async () => {
  emu = await Emu.create("bridge", { env: COMPAT });
  return emu;
};
const workspaceOf = async (e: Emu, id: string) => (await e.show(id)).task.workspace_path ?? "";

describe("Hermes 0.21.6 (emulator): a corrupt board", () => {
  it("pauses the board at once with one alert naming the repair, holds the finished run's close, and resumes after `repair`", async () => {
    const e = await board();
    hook = await WebhookServer.start();
    const a = await e.createTask("finishes while the board is corrupt", { assignee: SEAT, body: "MODE:wait-file" });
    const b = await runBridge(e, {
      once: false,
      base: { concurrency: 1, webhook: { url: hook.url }, discovery: { watch: false, debounceMs: 20, sweepSeconds: 1 } },
    });
    let next = "";
    try {
      await b.monitor.phase(a, "working");
      // Waits behind the seat's one slot.
      next = await e.createTask("claimed once the board answers", { assignee: SEAT, body: "MODE:complete" });
      const ws = await workspaceOf(e, a);
      const db = join(e.home, "kanban", "boards", "bridge", "kanban.db");
      writeFileSync(`${db}.emulator-corrupt`, JSON.stringify({ kind: "index" }));
      const paused = await b.monitor.next("board:paused", (p) => p.board === "bridge");
      expect(paused.repair).toBe("hermes kanban --board bridge repair");
      writeFileSync(join(ws, "go"), "");
      const closed = await b.monitor.closed(a);
      expect(closed.close).toBe("held");
      await hook.waitFor(1);
      // The operator repairs the board; the seat finds out on its next probe.
      expect((await e.kanban(["repair"])).code).toBe(0);
      const resumed = await b.monitor.next("board:resumed", (r) => r.board === "bridge");
      expect(resumed.replayed).toBe(1);
      await b.monitor.closed(next);
    } finally {
      await b.daemon.stop();
    }
    expect((await e.show(a)).task.status).toBe("done");
    expect((await e.show(a)).runs.at(-1)?.summary).toContain("finished after the bridge restarted");
    expect((await e.show(next)).task.status).toBe("done");
    const alerts = hook.received.map((r) => r.json);
    expect(alerts.map((x) => x.event)).toEqual(["board_corrupt"]);
    expect(String(alerts[0]?.error)).toContain("`hermes kanban --board bridge repair`");
    expect(b.built.outbox.open()).toEqual([]);
  });
});

describe("Hermes 0.21.6 (emulator): a done task reopened", () => {
  it("is claimed again as a new run whose prompt leads with the reopen reason and kind, resumes the earlier session, keeps the earlier deliverables and counts as a reopen", async () => {
    const e = await board();
    const id = await e.createTask("report, reopened", { assignee: SEAT, body: "MODE:reopen" });
    const first = await runBridge(e);
    await first.daemon.done;
    const done = await e.show(id);
    expect(done.task.status).toBe("done");
    const firstRun = done.runs.at(-1);
    const attached = (await e.kanban(["attachments", id, "--json"])).stdout;
    expect(attached).toContain("report.md");
    // An operator undoes the completion, back into the pool with a reason and a kind.
    const r = await e.kanban(["reopen", id, "--landing", "blocked", "--kind", "needs_input", "--reason", "the report misses the totals"]);
    expect(r.code, r.stderr).toBe(0);
    expect((await e.kanban(["unblock", id])).code).toBe(0);
    const again = await runBridge(e);
    await again.daemon.done;
    const d = await e.show(id);
    expect(d.task.status).toBe("done");
    const last = d.runs.at(-1);
    expect(last?.id).not.toBe(firstRun?.id);
    expect(last?.summary).toBe(`re-worked in sess-${id}`);
    const note = String((last?.metadata as { note?: string } | undefined)?.note);
    expect(note).toMatch(/^This task was completed before and has been reopened on the board with REOPENED \(needs_input\): the report misses the totals\n/);
    expect(note).toContain(`The earlier result (run ${firstRun?.id}) was: first result: report written`);
    expect(note).toContain("Its deliverables stay attached to the task: ");
    expect(last?.metadata).toMatchObject({
      bridge: {
        session: { id: `sess-${id}`, resumed: true },
        reopen: { of_run: firstRun?.id, reason: "the report misses the totals", kind: "needs_input" },
      },
    });
    // The earlier deliverable is still on the task.
    expect((await e.kanban(["attachments", id, "--json"])).stdout).toContain("report.md");
    // `usage`: two runs, one of them a reopen — not a second first success.
    const { collectRuns, usageReport } = await import("../../src/observe/usage-report.js");
    const report = usageReport(await collectRuns([e.board()]), { since: 0, by: "task", boards: ["bridge"] });
    expect(report.total).toMatchObject({ runs: 2, reopens: 1 });
    // Reopened straight to `ready` (the default landing): claimed again at once.
    expect((await e.kanban(["reopen", id, "--reason", "totals are wrong"])).code).toBe(0);
    await (await runBridge(e)).daemon.done;
    const third = await e.show(id);
    expect(third.task.status).toBe("done");
    expect(third.runs).toHaveLength(3);
    expect(String((third.runs.at(-1)?.metadata as { note?: string } | undefined)?.note)).toMatch(
      /^This task was completed before and has been reopened on the board with REOPENED: totals are wrong\n/,
    );
  });
});

describe("Hermes 0.21.6 (emulator): a running task pulled into review by someone else", () => {
  it("stops the run like a reclaim — the lease is lost, nothing of the run lands — and the card says who moved it", async () => {
    const e = await board();
    const id = await e.createTask("pulled into review", { assignee: SEAT, body: "MODE:wait-file" });
    const b = await runBridge(e, { once: false });
    try {
      const closed = b.monitor.closed(id);
      await b.monitor.phase(id, "working");
      const r = await e.kanban(["request-review", id, "--force", "--reviewer", "alice", "--summary", "the operator takes it to review"]);
      expect(r.code, r.stderr).toBe(0);
      const report = await closed;
      expect(report).toMatchObject({ decision: "lost", close: "lease_lost" });
    } finally {
      await b.daemon.stop();
    }
    const d = await e.show(id);
    expect(d.task).toMatchObject({ status: "review", assignee: "alice" });
    // The forced move closed the seat's run; nothing after it but the bridge's one comment.
    expect(d.runs.map((x) => x.outcome)).toEqual(["review_requested"]);
    const moved = d.events.findIndex((x) => x.kind === "review_requested");
    expect(d.events.slice(moved + 1).map((x) => x.kind)).toEqual(["commented"]);
    expect(d.comments.at(-1)?.body).toMatch(
      /^hermes-kanban-bridge \(seat test-seat\): run \d+ was moved to review by another actor \(the board records no name; not this seat\) with `request-review --force`, handed to reviewer alice while its agent was working; the agent was stopped and nothing of this run was applied/,
    );
  });
});

describe("Hermes 0.21.6 (emulator): never complete a blocked task (upstream #101785)", () => {
  it("a close that comes after an operator's block lands nowhere: the fence refuses it, the task stays blocked and its child is not promoted", async () => {
    const e = await board();
    const id = await e.createTask("blocked under the agent", { assignee: SEAT, body: "MODE:wait-file" });
    const child = await e.createTask("waits for it", { assignee: "someone-else", parent: id });
    // A 10-minute heartbeat on an hour's claim: after the claim's read the run does not look again before its close.
    const b = await runBridge(e, { once: false, base: { claim: { ttlSeconds: 3600 }, heartbeat: { intervalSeconds: 600 } } });
    try {
      const closed = b.monitor.closed(id);
      await b.monitor.phase(id, "working");
      const ws = await workspaceOf(e, id);
      // The operator blocks the task (no run of theirs: an unfenced block); on 0.21.6 an unfenced complete would now land.
      expect((await e.kanban(["block", id, "operator: hold it", "--kind", "needs_input"])).code).toBe(0);
      writeFileSync(join(ws, "go"), "");
      const report = await closed;
      // Refused by the fence at the close, or found lost by the read before it (the workspace's finish): either way, lost.
      expect(report.close).toBe("lease_lost");
    } finally {
      await b.daemon.stop();
    }
    const d = await e.show(id);
    expect(d.task.status).toBe("blocked");
    expect(d.runs.map((r) => r.outcome)).toEqual(["blocked"]);
    expect(d.events.filter((x) => x.kind === "completed")).toEqual([]);
    expect((await e.show(child)).task.status).toBe("todo");
  });

  it("the fence itself: the run's complete after the operator's block is a lost lease, not a landing", async () => {
    const e = await board();
    const id = await e.createTask("blocked under the run", { assignee: SEAT });
    const child = await e.createTask("waits for it", { assignee: "someone-else", parent: id });
    const hb = e.board();
    const receipt = await hb.claim(id, 600);
    const runId = (await hb.show(id)).runs.at(-1)?.id ?? null;
    expect(runId).not.toBeNull();
    const lease = {
      board: "bridge",
      taskId: id,
      runId,
      lock: null,
      workspace: receipt.workspace,
      claimedAt: Date.now(),
      expiresAt: Date.now() + 600_000,
      ttlSeconds: 600,
    };
    expect((await e.kanban(["block", id, "operator: hold it"])).code).toBe(0);
    const fenced = fencedView(hb, lease, { retry: { retries: 2, minDelayMs: 10, maxDelayMs: 20, deadlineMs: 5000 }, clock: systemClock, author: "test" });
    await expect(fenced.complete({ summary: "late", metadata: {} })).rejects.toBeInstanceOf(LeaseLost);
    expect((await e.show(id)).task.status).toBe("blocked");
    expect((await e.show(id)).events.filter((x) => x.kind === "completed")).toEqual([]);
    expect((await e.show(child)).task.status).toBe("todo");
  });
});
