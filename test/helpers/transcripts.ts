// Reads the recorded real-Hermes transcripts (shared/reference/hermes-transcripts, copied under
// test/fixtures/hermes-transcripts): blocks of label, argv, env overrides, exit code, stdout, stderr.
import { readFileSync } from "node:fs";
import { shellWords } from "../../src/config/command.js";

export interface TranscriptBlock {
  label: string;
  argv: string[];
  env: Record<string, string>;
  exit: number;
  wallSeconds: number;
  /** The latest board time (epoch s) the recording showed before this block ran (created/ended/now fields), or null. */
  recordedNow: number | null;
  /** The recording abbreviated the command line ("…[N chars of 'R' elided]…"): it cannot be replayed. */
  elided: boolean;
  stdout: string;
  stderr: string;
  /** Files the recorder created before this call (`## FILE <path> <JSON content>` lines). */
  files: { path: string; content: string }[];
}

function section(lines: string[], from: number, name: string, until: (l: string) => boolean): { text: string; next: number } {
  if (lines[from] !== `--- ${name} ---`) throw new Error(`expected --- ${name} --- at line ${from + 1}, got ${lines[from]}`);
  const body: string[] = [];
  let i = from + 1;
  while (i < lines.length && !until(lines[i] ?? "")) body.push(lines[i++] ?? "");
  while (body.length > 0 && body[body.length - 1] === "") body.pop();
  const text = body.join("\n");
  return { text: text === "(empty)" || text === "" ? "" : `${text}\n`, next: i };
}

export function readTranscript(file: string): TranscriptBlock[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const blocks: TranscriptBlock[] = [];
  let recordedNow: number | null = null;
  let files: TranscriptBlock["files"] = [];
  const TIME_FIELD = /"(?:created_at|started_at|ended_at|completed_at|last_heartbeat_at|now)": (1\d{9})\b/g;
  for (let i = 0; i < lines.length; i += 1) {
    for (const m of (lines[i] ?? "").matchAll(TIME_FIELD)) recordedNow = Math.max(recordedNow ?? 0, Number(m[1]));
    const file = /^## FILE (\S+) (.*)$/.exec(lines[i] ?? "");
    if (file) files.push({ path: file[1] ?? "", content: JSON.parse(file[2] ?? '""') as string });
    const head = /^### (.*)$/.exec(lines[i] ?? "");
    if (!head || !(lines[i + 1] ?? "").startsWith("$ hermes ")) continue;
    let cmd = (lines[i + 1] ?? "").slice(2);
    let j = i + 2;
    while (!shellWords(cmd).complete && j < lines.length) cmd += `\n${lines[j++]}`;
    let env: Record<string, string> = {};
    if ((lines[j] ?? "").startsWith("env: ")) env = JSON.parse((lines[j++] ?? "").slice(5)) as Record<string, string>;
    const ex = /^exit: (-?\d+)\s+\(wall ([\d.]+)s\)/.exec(lines[j] ?? "");
    if (!ex) continue;
    const out = section(lines, j + 1, "stdout", (l) => l === "--- stderr ---");
    // stderr runs to the next block, a note or the end (a trailing blank line separates blocks).
    const err = section(lines, out.next, "stderr", (l) => l.startsWith("### ") || l.startsWith("## NOTE") || l.startsWith("## FILE") || l.startsWith("sql> "));
    blocks.push({
      label: head[1] ?? "",
      argv: shellWords(cmd).words.slice(1),
      env,
      exit: Number(ex[1]),
      wallSeconds: Number(ex[2]),
      recordedNow,
      elided: /chars of .* elided\]/.test(cmd),
      stdout: out.text,
      stderr: err.text,
      files,
    });
    files = [];
    for (const l of lines.slice(j, err.next)) for (const m of l.matchAll(TIME_FIELD)) recordedNow = Math.max(recordedNow ?? 0, Number(m[1]));
    i = err.next - 1;
  }
  return blocks;
}
