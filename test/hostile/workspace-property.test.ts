// A property over the workspace boundary: for random workspace trees — regular files, directories,
// links inside and out, hard links to a host file, FIFOs, sockets — and random artifact lists and
// summaries naming them (relative, absolute, `..`, outside), a run on the emulator board (in this process)
// never reads or attaches anything from outside the workspace, and always ends in exactly one close.
import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timingFor } from "../../src/config/timing.js";
import { SessionJournal } from "../../src/continuity/journal.js";
import { testSeatRun } from "../helpers/seat-run.js";
import { hardenedGit } from "../../src/git/runner.js";
import { HeldLease } from "../../src/lease/held.js";
import { leaseFrom, leaseOfReceipt } from "../../src/lease/lease.js";
import { TaskRun } from "../../src/run/task-run.js";
import { NOTHING_TO_FINISH } from "../../src/workspace/port.js";
import { type TestBoard, testBoard } from "../helpers/in-process-board.js";
import { FakeCloser, ManualFactories, ScriptAgent, finished } from "../helpers/fakes.js";
import { LeaseClock } from "../../src/lease/clock.js";

const SECRET = "HOST-ONLY-CONTENT-7731";
const KINDS = ["file", "dir", "linkIn", "linkOut", "linkOutDir", "hardOut", "fifo", "socket"] as const;
type Kind = (typeof KINDS)[number];
const entry = fc.record({
  dir: fc.constantFrom("", "sub/", "sub/deep/"),
  name: fc.constantFrom("a.md", "b.txt", "c", "report.md"),
  kind: fc.constantFrom(...KINDS),
});
const artifactPath = fc.oneof(
  fc.constantFrom("a.md", "b.txt", "c", "report.md", "sub/a.md", "sub/deep/report.md", "sub/c", "../outside/secret.txt", "missing.md"),
  fc.constant("@outside"),
  fc.constant("@absolute"),
);

function build(ws: string, outside: string, entries: { dir: string; name: string; kind: Kind }[]): void {
  const sockets: string[] = [];
  for (const e of entries) {
    const p = join(ws, e.dir, e.name);
    mkdirSync(dirname(p), { recursive: true });
    rmSync(p, { recursive: true, force: true });
    const at = sockets.indexOf(p);
    if (at !== -1) sockets.splice(at, 1);
    if (e.kind === "file") writeFileSync(p, `inside ${e.name}\n`);
    else if (e.kind === "dir") mkdirSync(p, { recursive: true });
    else if (e.kind === "linkIn") symlinkSync(join(ws, "sub"), p);
    else if (e.kind === "linkOut") symlinkSync(join(outside, "secret.txt"), p);
    else if (e.kind === "linkOutDir") symlinkSync(outside, p);
    else if (e.kind === "hardOut") linkSync(join(outside, "secret.txt"), p);
    else if (e.kind === "fifo") execFileSync("mkfifo", [p]);
    else if (!sockets.includes(p)) sockets.push(p);
  }
  if (sockets.length) execFileSync("python3", ["-c", "import socket,sys\nfor p in sys.argv[1:]:\n  socket.socket(socket.AF_UNIX).bind(p)", ...sockets]);
}

let t: TestBoard;
beforeAll(async () => {
  t = await testBoard();
});
afterAll(() => t.cleanup());

/** What the board keeps of a task's attachments: the CLI's own listing, each stored file read. */
async function attachmentsOf(id: string): Promise<{ filename: string; data: string }[]> {
  const r = await t.emu.kanban(["attachments", id, "--json"]);
  if (r.code !== 0) throw new Error(r.stderr);
  return (JSON.parse(r.stdout) as { filename: string; stored_path: string }[]).map((a) => ({
    filename: a.filename,
    data: readFileSync(a.stored_path, "utf8"),
  }));
}

async function runOnce(entries: { dir: string; name: string; kind: Kind }[], paths: string[], summaryNames: string[]) {
  const root = mkdtempSync(join(tmpdir(), "hkb-prop-"));
  const ws = join(root, "ws");
  const outside = join(root, "outside");
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), `${SECRET}\n`);
  const resolveArtifact = (p: string) => (p === "@outside" ? join(outside, "secret.txt") : p === "@absolute" ? join(ws, "a.md") : p);
  const board = t.board;
  const closer = new FakeCloser();
  const id = await t.seed("prop");
  const receipt = await board.claim(id, 900);
  const lease = leaseFrom(leaseOfReceipt("b", receipt), await board.show(id));
  const agent = new ScriptAgent(async function* () {
    build(ws, outside, entries);
    const summary = `done: ${summaryNames.map((n) => join(ws, n)).join(" ")} and ${join(outside, "secret.txt")}`;
    const artifacts = paths.map((p) => ({ type: "file", label: p, path: resolveArtifact(p) }));
    yield { type: "outcome", request: { kind: "complete", summary, result: { ok: true, status: "ok", items: 1, artifacts } } };
    yield finished();
  });
  const timing = timingFor({ claim: { ttlSeconds: 900, maxTtlSeconds: 14400 }, heartbeat: {} }, 900);
  const clock = { now: () => 1_800_000_000_000 };
  const make = new ManualFactories();
  const held = HeldLease.of(
    board,
    { lease, detail: await board.show(id) },
    {
      fencing: { retry: { retries: 0, minDelayMs: 0, maxDelayMs: 0, deadlineMs: 1000 }, clock, author: "seat" },
      hold: { clock, timer: (at, fire) => make.timer(at, fire), keeper: (d) => make.keeper(d) },
    },
    LeaseClock.of(clock.now(), timing),
    { contextText: "", reclaimed: false },
  );
  const seat = testSeatRun({
    closer,
    clock,
    make,
    prompts: { task: "t", resume: "r" },
    journal: new SessionJournal(join(root, "sessions")),
    git: hardenedGit(process.env, { globalConfig: join(root, "gitconfig"), passEnv: [] }),
    workspaces: {
      prepare: async () => ({
        mode: "board",
        local: ws,
        boardPath: ws,
        why: "test",
        boardPathOf: (f) => f,
        sharedWithBoard: true,
        finish: async () => NOTHING_TO_FINISH,
      }),
    },
    settings: { retry: { retries: 0, baseMs: 0, maxMs: 0 }, runsDir: join(root, "runs"), privateRoot: join(root, "private") },
  });
  const report = await new TaskRun(seat, { board, held, agent, traceId: "trace-property-0001" }).run();
  const attached = await attachmentsOf(id);
  rmSync(root, { recursive: true, force: true });
  return { report, closer, attached };
}

describe("the workspace boundary, as a property", () => {
  it("the property's way in works: a regular file in the workspace, named as an artifact, is attached", async () => {
    const { report, attached } = await runOnce([{ dir: "sub/", name: "a.md", kind: "file" }], ["sub/a.md"], []);
    expect(report.decision).toBe("complete");
    expect(attached).toEqual([{ filename: "a.md", data: "inside a.md\n" }]);
  });

  it("nothing outside the workspace is ever read or attached, and every run closes exactly once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { maxLength: 8 }),
        fc.array(artifactPath, { maxLength: 4 }),
        fc.array(fc.constantFrom("a.md", "report.md", "sub/c", "c"), { maxLength: 2 }),
        async (entries, paths, named) => {
          const { report, closer, attached } = await runOnce(entries, paths, named);
          expect(closer.intents.length + closer.lost).toBe(1);
          expect(["complete", "block"]).toContain(report.decision);
          for (const a of attached) expect(a.data).not.toContain(SECRET);
          expect(JSON.stringify(closer.intents)).not.toContain(SECRET);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
