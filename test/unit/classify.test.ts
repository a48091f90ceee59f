// Error classification on what the real Hermes 0.20.0 printed (the recorded transcripts): every
// failing call becomes the typed error the bridge acts on, naming verb, exit code and stderr tail.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { classify, isLeaseBoundRefusal } from "../../src/board/classify.js";
import type { RunResult } from "../../src/process/runner.js";
import { BoardNotFound, NotClaimable, Rejected, TaskNotFound, Transient, UsageError } from "../../src/errors/board.js";
import { type TranscriptBlock, readTranscript } from "../helpers/transcripts.js";

const DIR = "test/fixtures/hermes-transcripts";
const failing: TranscriptBlock[] = readdirSync(DIR)
  .filter((f) => f.endsWith(".txt"))
  .flatMap((f) => readTranscript(join(DIR, f)))
  .filter((b) => b.exit !== 0);

const result = (b: TranscriptBlock): RunResult => ({
  argv: ["hermes", ...b.argv],
  pid: 1,
  exitCode: b.exit,
  signal: null,
  stdout: b.stdout,
  stderr: b.stderr,
  stdoutTruncated: false,
  stdoutTotal: b.stdout.length,
  reason: "exited",
  reaped: 0,
  durationMs: 1,
});

const classOf = (label: string) => {
  const b = failing.find((x) => x.label === label);
  if (!b) throw new Error(`no recorded failing block "${label}"`);
  return classify(result(b), { verb: "v", board: "bridge" });
};

describe("classify on recorded real stderr", () => {
  it("the transcripts hold enough failing calls to mean something", () => {
    expect(failing.length).toBeGreaterThan(60);
  });

  it("no real domain failure is mistaken for a transient one (nothing definitive is retried)", () => {
    const transient = failing.filter((b) => classify(result(b), { verb: "v", board: "bridge" }) instanceof Transient).map((b) => b.label);
    expect(transient).toEqual([]);
  });

  it("every exit 2 is a usage error (the bridge built a wrong call)", () => {
    for (const b of failing.filter((x) => x.exit === 2)) expect(classify(result(b), { verb: "v", board: "bridge" }), b.label).toBeInstanceOf(UsageError);
  });

  it("maps the failures the bridge acts on", () => {
    expect(classOf("--board nonexistent")).toBeInstanceOf(BoardNotFound);
    expect(classOf("claim a again (already running)")).toBeInstanceOf(NotClaimable);
    expect(classOf("claim done")).toBeInstanceOf(NotClaimable);
    expect(classOf("claim missing")).toBeInstanceOf(TaskNotFound);
    expect(classOf("show missing --json")).toBeInstanceOf(TaskNotFound);
    expect(classOf("context missing")).toBeInstanceOf(TaskNotFound);
    expect(classOf("comment missing task")).toBeInstanceOf(TaskNotFound);
    const fenced = classOf("heartbeat with wrong run id");
    expect(fenced).toBeInstanceOf(Rejected);
    expect(isLeaseBoundRefusal(fenced)).toBe(true);
    expect(isLeaseBoundRefusal(classOf("complete d (fenced with run1) after re-claim -> refused"))).toBe(true);
    expect(isLeaseBoundRefusal(classOf("block d (fenced with run1) -> refused"))).toBe(true);
    const artifact = classOf("complete l with metadata.artifacts naming a missing scratch file");
    expect(artifact).toBeInstanceOf(Rejected);
    expect(isLeaseBoundRefusal(artifact)).toBe(false);
    expect(artifact?.message).toMatch(/declared scratch artifact is unavailable/);
  });

  it("names verb, board, exit code and the stderr tail", () => {
    const err = classOf("complete e --metadata not-json");
    expect(err).toBeInstanceOf(UsageError);
    expect(err?.message).toContain(
      "hermes kanban --board bridge v (exit 2): kanban: --metadata: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
    );
    const arg = classOf("--board after verb (argparse rejects)");
    expect(arg?.message).toContain("hermes: error: unrecognized arguments: --board bridge");
  });
});
