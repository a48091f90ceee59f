// Emulator parity, on the record: every block of the recorded real-Hermes transcripts is replayed
// against the emulator — same argv, same env overrides, board time advanced as the recording's wall
// clock did — and exit code, stdout and stderr are compared after normalising what differs by nature
// (task ids, timestamps, claim locks, the HERMES_HOME path). Verbs the emulator does not implement are
// listed, not silently skipped. Each call runs the emulator's own entry (main(), what its bin and its
// call server run) in this process: a Node start per recorded call would only add time.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/emulator/main.js";

// Dates the emulator prints (watch, context) are local time, as the recording's were: UTC.
process.env.TZ = "UTC";
import { type TranscriptBlock, readTranscript } from "../helpers/transcripts.js";

const DIR = "test/fixtures/hermes-transcripts";
/** Real verbs a bridge never uses, which the emulator does not implement. */
const NOT_EMULATED = new Set([
  "stats",
  "runs",
  "assignees",
  "tail",
  "diagnostics",
  "diag",
  "edit",
  "assign",
  "reassign",
  "link",
  "unlink",
  "promote",
  "notify-list",
  "log",
]);

function verbOf(argv: string[]): string | null {
  if (argv[0] !== "kanban") return null;
  for (let i = 1; i < argv.length; i += 1) {
    const a = argv[i] ?? "";
    if (a === "--board") i += 1;
    else if (!a.startsWith("--board=")) return a;
  }
  return null;
}

const normalize = (text: string, home: string, ids: Map<string, string>) => {
  let t = text
    .replace(/<HERMES_HOMES>\/s\d+/g, "<HOME>")
    .split(home)
    .join("<HOME>");
  for (const [actual, expected] of ids) t = t.split(actual).join(expected);
  return t
    .replace(/\b1[789]\d{8}(\.\d+)?\b/g, "<T>")
    .replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}/g, "<DATE>")
    .replace(/(lock[=:] ?"?)[^\s",)]+:\d+/g, "$1<LOCK>")
    .replace(/(stale_lock=)[^\s",)]+/g, "$1<LOCK>")
    .replace(/'(prev_lock|stale_lock|lock)': '[^']+'/g, "'$1': '<LOCK>'")
    .replace(/"(prev_lock|stale_lock|lock|claim_lock)": "[^"]+"/g, '"$1": "<LOCK>"')
    .replace(/\b(just now|\d+[mhd] ago)\b/g, "<AGE>");
};

/** Replays one transcript of `dir` (the emulator in the given compat mode: "0.21" for Hermes 0.21's recordings). */
export async function replay(file: string, o: { dir?: string; compat?: string } = {}) {
  const dir = o.dir ?? DIR;
  const home = mkdtempSync(join(tmpdir(), "hkb-replay-"));
  const ids = new Map<string, string>(); // actual emulator id → recorded id
  const toActual = new Map<string, string>();
  const mismatches: { label: string; what: string; expected: string; actual: string }[] = [];
  const skipped: string[] = [];
  let wall = 0;
  let anchor: { recorded: number; wall: number } | null = null;
  /** The recorder waited out short claims before running dispatch ("claim with --ttl 1, wait …"). */
  let wait = 0;
  const started = Date.now();
  const blocks = readTranscript(join(dir, file));
  // Before the recording's first timestamp, its clock is extrapolated back from it by wall times.
  const firstTimed = blocks.findIndex((b) => b.recordedNow !== null);
  if (firstTimed >= 0)
    anchor = { recorded: (blocks[firstTimed]?.recordedNow ?? 0) - blocks.slice(0, firstTimed).reduce((n, b) => n + b.wallSeconds, 0), wall: 0 };
  try {
    for (const b of blocks) {
      const verb = verbOf(b.argv);
      if (verb !== null && NOT_EMULATED.has(verb)) {
        skipped.push(`${b.label} (${verb})`);
        continue;
      }
      if (b.elided) {
        skipped.push(`${b.label} (the recording elided this argument)`);
        continue;
      }
      // Board time follows the recording's clock (its timestamps, then its wall times), so claims with
      // a 1 s TTL have expired when the recording's next steps ran.
      if (b.recordedNow !== null && (anchor === null || b.recordedNow > anchor.recorded + (wall - anchor.wall))) anchor = { recorded: b.recordedNow, wall };
      if (verb === "claim") {
        const ttl = Number(b.argv[b.argv.indexOf("--ttl") + 1]);
        if (b.argv.includes("--ttl") && ttl <= 5) wait = Math.max(wait, ttl + 1);
      }
      if (verb === "dispatch" && !b.argv.includes("--dry-run")) {
        wall += wait;
        wait = 0;
      }
      const boardNow = anchor ? anchor.recorded + (wall - anchor.wall) : null;
      // Where the recording says what time it was, board time is pinned to it (an offset from the real clock
      // could cross a second between this write and the call's read, on a busy machine).
      if (boardNow === null) writeFileSync(join(home, ".emulator-clock-offset"), String(Math.round(wall - (Date.now() - started) / 1000)));
      else writeFileSync(join(home, ".emulator-clock-fixed"), String(Math.round(boardNow)));
      wall += b.wallSeconds;
      const local = (a: string) => a.replace(/<HERMES_HOMES>\/s\d+/g, home).replace(/t_[0-9a-f]{8}/g, (id) => toActual.get(id) ?? id);
      for (const f of b.files) {
        mkdirSync(dirname(local(f.path)), { recursive: true });
        writeFileSync(local(f.path), f.content);
      }
      const argv = b.argv.map(local);
      const env = Object.fromEntries(Object.entries(b.env).map(([k, v]) => [k, local(v)]));
      const out = await main(argv, {
        PATH: process.env.PATH ?? "",
        HERMES_HOME: home,
        TZ: "UTC",
        ...(o.compat ? { HERMES_EMULATOR_COMPAT: o.compat } : {}),
        ...env,
      });
      const r = { exitCode: out.code, stdout: out.stdout, stderr: out.stderr };
      learnIds(b, r.stdout, ids, toActual);
      const check = (what: string, expected: string, actual: string) => {
        if (expected !== actual) mismatches.push({ label: b.label, what, expected, actual });
      };
      check("exit", String(b.exit), String(r.exitCode));
      check("stdout", normalize(b.stdout, "<HERMES_HOMES>", new Map()), normalize(r.stdout, home, ids));
      check("stderr", normalize(b.stderr, "<HERMES_HOMES>", new Map()), normalize(r.stderr, home, ids));
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  return { mismatches, skipped };
}

/** Task ids created in the block: the recording's and the emulator's, in order of appearance. */
function learnIds(b: TranscriptBlock, actualOut: string, ids: Map<string, string>, toActual: Map<string, string>): void {
  if (!/^(create|swarm)$/.test(verbOf(b.argv) ?? "")) return;
  const rec = [...new Set(b.stdout.match(/t_[0-9a-f]{8}/g) ?? [])].filter((id) => !toActual.has(id));
  const act = [...new Set(actualOut.match(/t_[0-9a-f]{8}/g) ?? [])].filter((id) => !ids.has(id));
  rec.forEach((id, i) => {
    const a = act[i];
    if (!a) return;
    ids.set(a, id);
    toActual.set(id, a);
  });
}

/** Each Hermes line the emulator plays, with its recordings. */
const LINES = [
  { name: "Hermes 0.20.0", dir: DIR, compat: undefined },
  { name: "Hermes 0.21.3 (HERMES_EMULATOR_COMPAT=0.21)", dir: "test/fixtures/hermes-021/transcripts", compat: "0.21" },
];

if (!process.env.REPLAY_ONLY)
  describe.each(LINES)("emulator parity with the recorded transcripts of $name", (line) => {
    const files = readdirSync(line.dir).filter((f) => f.endsWith(".txt"));
    it.each(files)(
      "%s",
      async (file) => {
        const { mismatches } = await replay(file, { dir: line.dir, ...(line.compat ? { compat: line.compat } : {}) });
        expect(mismatches).toEqual([]);
      },
      120_000,
    );
  });
