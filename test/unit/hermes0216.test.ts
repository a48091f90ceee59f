// Hermes 0.21.6 in the bridge's own terms: a corrupt board's words (recorded from the real 0.21.3 CLI,
// which prints them the same from then on) become BoardCorrupt — never a refusal a close is replaced for,
// never retried —, and doctor's version row warns below 0.21.6 naming the advisory.
import { describe, expect, it } from "vitest";
import { classify } from "../../src/board/classify.js";
import { versionCheck, boardFix } from "../../src/cli/doctor-hermes.js";
import { BoardCorrupt, Rejected, Transient } from "../../src/errors/board.js";
import { isPermanent } from "../../src/errors/index.js";
import { isDefinitiveRefusal } from "../../src/outbox/refused.js";
import type { RunResult } from "../../src/process/runner.js";
import type { TaskEvent, TaskRunRecord } from "../../src/board/port.js";
import { detailOf } from "../helpers/fakes.js";

const failed = (stderr: string): RunResult => ({
  argv: ["hermes"],
  pid: 1,
  exitCode: 1,
  signal: null,
  stdout: "",
  stderr,
  stdoutTruncated: false,
  stdoutTotal: 0,
  reason: "exited",
  reaped: 0,
  durationMs: 1,
});

// What real 0.21.3 printed for a board whose tasks table's root page was overwritten (two calls in a row).
const FIRST =
  "kanban: could not initialize database: Refusing to open corrupt kanban DB at /tmp/h/kanban.db: integrity_check returned '*** in database main ***\\nOn tree page 2 cell 2: Offset 65535 out of range 3832..4092'. Original preserved; backup at /tmp/h/kanban.db.corrupt.eb2911e808fc44ce.bak.\n";
const SECOND =
  "kanban: could not initialize database: Refusing to open corrupt kanban DB at /tmp/h/kanban.db: sqlite refused to open file: database disk image is malformed. Original preserved; backup at /tmp/h/kanban.db.corrupt.eb2911e808fc44ce.bak.\n";

describe("a corrupt board, as the CLI says it", () => {
  it("is BoardCorrupt with the database, the reason, the backup and the repair command", () => {
    for (const stderr of [FIRST, SECOND]) {
      const err = classify(failed(stderr), { verb: "list", board: "proj" });
      expect(err).toBeInstanceOf(BoardCorrupt);
      const c = err as BoardCorrupt;
      expect(c).toMatchObject({
        dbPath: "/tmp/h/kanban.db",
        backupPath: "/tmp/h/kanban.db.corrupt.eb2911e808fc44ce.bak",
        repair: "hermes kanban --board proj repair",
      });
      expect(c.message).toContain("`hermes kanban --board proj repair`");
      // Not a refusal of the close (no templated block replaces it) and never retried.
      expect(isDefinitiveRefusal(c)).toBe(false);
      expect(c).not.toBeInstanceOf(Rejected);
      expect(isPermanent(c)).toBe(true);
    }
    expect((classify(failed(SECOND), { verb: "list", board: "proj" }) as BoardCorrupt).reason).toBe(
      "sqlite refused to open file: database disk image is malformed",
    );
  });

  it("a backup that failed, and SQLite's own words before the guard, are corrupt boards too; a locked board stays transient", () => {
    const noCopy = classify(failed(SECOND.replace(/backup at \S+\.bak\./, "backup at <backup failed>.")), { verb: "show", board: "b" });
    expect(noCopy).toBeInstanceOf(BoardCorrupt);
    expect((noCopy as BoardCorrupt).backupPath).toBeNull();
    const header = classify(
      failed("kanban: could not initialize database: file is not a database: invalid SQLite header for /tmp/h/kanban.db; first_32=de ad\n"),
      { verb: "show", board: "b" },
    );
    expect(header).toBeInstanceOf(BoardCorrupt);
    expect(classify(failed("kanban: database is locked\n"), { verb: "show", board: "b" })).toBeInstanceOf(Transient);
  });

  it("doctor names the repair for a corrupt board, nothing for another failure", () => {
    const err = classify(failed(SECOND), { verb: "list", board: "proj" });
    expect(boardFix(err)).toContain("run `hermes kanban --board proj repair` (Hermes kept a copy: /tmp/h/kanban.db.corrupt.eb2911e808fc44ce.bak)");
    expect(boardFix(new Error("x"))).toBeNull();
  });
});

describe("doctor's version row", () => {
  it("warns below 0.21.6 naming the advisory, passes from 0.21.6 on, and warns when no version is named", () => {
    for (const v of ["0.20.0", "0.21.3", "0.21.5", "0.9.99"]) {
      const c = versionCheck(v);
      expect(c, v).toMatchObject({ ok: true, warn: true });
      expect(c.detail).toContain("Tenable TRA-2026-65");
      expect(c.detail).toContain(`Hermes ${v} is below 0.21.6`);
      expect(c.fix).toContain("hermes gateway start");
    }
    for (const v of ["0.21.6", "0.21.10", "0.22.0", "1.0.0"]) {
      expect(versionCheck(v), v).toMatchObject({ ok: true, detail: `Hermes ${v} (0.21.6 or later: Tenable TRA-2026-65 fixed)` });
      expect(versionCheck(v).warn, v).toBeUndefined();
    }
    expect(versionCheck(null)).toMatchObject({ ok: true, warn: true });
  });
});

describe("0.21.6's capabilities", () => {
  it("are read from its --help, not its version line: 0.21.3's, without authorize-existing-pr", async () => {
    const { testBoard } = await import("../helpers/in-process-board.js");
    const [v0216, v021] = [
      await testBoard("b", { env: { HERMES_EMULATOR_COMPAT: "0.21.6" } }),
      await testBoard("b", { env: { HERMES_EMULATOR_COMPAT: "0.21" } }),
    ];
    try {
      const [a, b] = [await v0216.board.capabilities(), await v021.board.capabilities()];
      expect(a.version).toBe("0.21.6");
      expect({ ...a, version: null }).toEqual({ ...b, version: null, authorizeExistingPr: false });
    } finally {
      v0216.emu.cleanup();
      v021.emu.cleanup();
    }
  });
});

describe("the seat's metrics", () => {
  it("count a reopened task completed again as a reopen, not in hkb_completes_total", async () => {
    const { Metrics } = await import("../../src/observe/metrics.js");
    const { account } = await import("../../src/daemon/accounting.js");
    const { loadConfig } = await import("../../src/agents/kinds.js");
    const metrics = new Metrics();
    const config = loadConfig({ env: {}, base: { boards: ["b"], assignee: "seat", agent: { kind: "command", command: ["true"] }, stateDir: "/tmp/unused" } });
    const run = {
      taskId: "t_1",
      agent: "command",
      runId: 1,
      traceId: "x",
      decision: "complete" as const,
      close: "applied" as const,
      resumed: false,
      usage: null,
      durationMs: 1,
    };
    account({ config, clock: { now: () => 0 }, metrics }, "b", run);
    account({ config, clock: { now: () => 0 }, metrics }, "b", { ...run, runId: 2, reopen: true });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^hkb_completes_total\{board="b"\} 1$/m);
    expect(text).toMatch(/^hkb_reopen_completes_total\{board="b"\} 1$/m);
  });
});

describe("a reopen, as the board recorded it (run/prepare/reopen.ts)", () => {
  const ev = (kind: string, createdAt: number, o: Partial<TaskEvent> = {}): TaskEvent => ({
    kind,
    createdAt,
    runId: null,
    readyMaking: false,
    reason: null,
    claim: null,
    ...o,
  });
  const run = (id: number, endedAt: number): TaskRunRecord => ({
    id,
    profile: null,
    status: "done",
    outcome: "completed",
    summary: `result ${id}`,
    error: null,
    metadata: { artifacts: [{ path: "a.md", attachment: { filename: "a.md" } }, "/abs/b.txt"] },
    startedAt: endedAt - 5,
    endedAt,
  });
  const detail = (events: TaskEvent[], comments: { author: string; body: string; createdAt: number }[], runs: TaskRunRecord[]) => ({
    ...detailOf("t_1"),
    events,
    comments,
    runs,
  });

  it("takes the event's reason and kind, else this reopen's REOPEN comment — never one of an earlier reopen", async () => {
    const { reopenOf, reopenBrief } = await import("../../src/run/prepare/reopen.js");
    const d = detail(
      [ev("completed", 10), ev("reopened", 20, { reason: "old" }), ev("completed", 30), ev("reopened", 40, { reopen: { landing: "ready", kind: null } })],
      [
        { author: "op", body: "REOPEN: old", createdAt: 20 },
        { author: "op", body: "REOPEN: totals are wrong", createdAt: 40 },
      ],
      [run(1, 10), run(2, 30)],
    );
    expect(reopenOf(d)).toMatchObject({ at: 40, reason: "totals are wrong", previous: { runId: 2, deliverables: ["a.md", "/abs/b.txt"] } });
    // A reopen without a reason of its own does not borrow the earlier one's.
    const bare = detail(d.events, [{ author: "op", body: "REOPEN: old", createdAt: 20 }], d.runs);
    expect(reopenOf(bare)?.reason).toBeNull();
    expect(reopenBrief(bare)).toMatch(/^This task was completed before and has been reopened on the board with REOPENED: \(no reason given\)\n/);
    // Completed again since: no reopen to speak of.
    expect(reopenOf(detail([...d.events, ev("completed", 50)], d.comments, d.runs))).toBeNull();
    expect(reopenBrief(detail([ev("completed", 10)], [], [run(1, 10)]))).toBe("");
  });
});
