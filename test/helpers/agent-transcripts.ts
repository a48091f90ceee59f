// The recorded agent CLI runs (test/fixtures/agent-transcripts): their JSON lines, and the instant each was recorded
// at (its first line names it — scripts/record-claude-transcripts.ts sets reset times relative to it; older
// recordings were read at the day they were made, 2026-11-30 01:25 UTC).
import { readFileSync } from "node:fs";

export const DIR = "test/fixtures/agent-transcripts";
/** The day the unversioned recordings (Codex 0.171, the oldest Claude ones) were made, 01:25 UTC. */
export const RECORDED_DAY = Date.UTC(2026, 10, 30, 1, 25);

const text = (file: string) => readFileSync(`${DIR}/${file}`, "utf8");

export function jsonLines(file: string): string[] {
  return text(file)
    .split("\n")
    .filter((l) => l.startsWith("{"));
}

/** When the file was recorded (its `# recorded … at <ISO>` line), else RECORDED_DAY. */
export function recordedAt(file: string): number {
  const at = /^# recorded .* at (\S+) by /.exec(text(file))?.[1];
  return at ? Date.parse(at) : RECORDED_DAY;
}
