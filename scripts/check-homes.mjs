#!/usr/bin/env node
// Rules with one home that the layer gate cannot see, checked over the sources (part of `npm test`:
// scripts/gates.mjs). Each names the file that breaks it and the home it belongs in.
// - a claim's clock (deadline, polite stop, heartbeat: `…Seconds * 1000` of the timing values) is computed
//   in src/lease/clock.ts alone;
// - a polite stop signal is spelled only by the kinds' descriptors (`stopSignal: "SIG…"`) and the process runner;
// - a lease is built only in src/lease/ (a fenced view, a lease from a record, a lease clock);
// - the claim's facts travel in one field (`held`): the old bags (Claimed, LaunchInput, ClaimedRun) are gone;
// - tests read the seat's events, never its in-flight table (`.inflight`) nor a run's slot;
// - one model of Hermes in the tests, the emulator: no in-memory board beside it (FakeBoard, fake-board.ts);
// - a file is replaced whole only through src/state/atomic.ts (temp, fsync, rename): no write-then-rename by
//   hand — but the moves that are no write (a workspace entry handed back, a .git set aside, the hub's socket);
// - a run's block is worded in its one table (src/run/blocks/: `blockFor`), never by hand beside it — but a close
//   the board refused, which the outbox words also on `outbox replay` (src/outbox/refused.ts, refusal-text.ts);
// - nothing below the seat reads the whole config: the seat builds its settings once (daemon/seat-settings.ts)
//   — but the config's own loader of the kinds (agents/kinds.ts) and its view (observe/settings.ts).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

function sources(dir, skip = []) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return skip.includes(p) ? [] : sources(p, skip);
    return /\.m?ts$/.test(p) ? [p] : [];
  });
}
const src = sources("src", [join("src", "emulator")]).map((f) => ({ f, text: readFileSync(f, "utf8") }));
const tests = sources("test", [join("test", "fixtures")]).map((f) => ({ f, text: readFileSync(f, "utf8") }));
const problems = [];
const rule = (files, re, allowed, what) => {
  for (const { f, text } of files) if (!allowed(f) && re.test(text)) problems.push(`${f}: ${what}`);
};

rule(src, /(safetySeconds|wrapUpSeconds|heartbeatSeconds)\s*\*\s*1000/, (f) => f === join("src", "lease", "clock.ts"), "a claim's clock computed outside src/lease/clock.ts");
rule(
  src,
  /politeSignal\s*[:=?]+\s*"SIG|stopSignal\s*\?\?|politeSignal\s*\?\?\s*"SIG/,
  (f) => f.startsWith(join("src", "process")),
  "a polite stop signal spelled outside a kind's descriptor",
);
const kinds = src.filter(({ f }) => /src\/agents\/[^/]+\/kind\.ts$/.test(f));
if (kinds.length < 4) problems.push(`src/agents/*/kind.ts: only ${kinds.length} kind descriptors found`);
for (const { f, text } of kinds) if (!/stopSignal: "SIG[A-Z]+"/.test(text)) problems.push(`${f}: a kind without its own stopSignal`);
rule(
  src,
  /new FencedBoard\(|\bleaseOf\(|new LeaseClock\(|LeaseClock\.(of|renewable)\(/,
  (f) => f.startsWith(join("src", "lease")),
  "a lease (its fenced view, its record, its clock) built outside src/lease/",
);
rule(src, /\binterface (Claimed|LaunchInput|ClaimedRun)\b/, () => false, "a bag of the claim's facts: they travel as the run's held lease");
const moves = ["src/agent-files/owner.ts", "src/agent-files/unshare.ts", "src/git/guard.ts", "src/board/hub.mts"].map((f) => join(...f.split("/")));
rule(
  src,
  /\brename(Sync)?\(/,
  (f) => f.startsWith(join("src", "state")) || moves.includes(f),
  "a file written then renamed by hand: replace it through src/state/atomic.ts (writeStateFile, replaceWith)",
);
rule(
  src,
  /\bblockDecision\(|\bwhat_happened:\s*[`"']/,
  (f) => f.startsWith(join("src", "run", "blocks")) || [join("src", "result", "decision.ts"), join("src", "outbox", "refused.ts"), join("src", "outbox", "refusal-text.ts")].includes(f),
  "a block worded outside the run's one table: add its cause to src/run/blocks/ and call blockFor",
);
const seatLevel = (f) => ["config", "daemon", "cli"].some((d) => f.startsWith(join("src", d))) || [join("src", "agents", "kinds.ts"), join("src", "observe", "settings.ts")].includes(f);
rule(src, /import type \{[^}]*\bConfig\b[^}]*\} from "[./]+config\/schema\.js"/, seatLevel, "the whole config read below the seat: take the seat's settings (daemon/seat-settings.ts)");
rule(
  tests,
  /\bclass FakeBoard\b|\bnew FakeBoard\(|fake-board\.js/,
  () => false,
  "a second model of Hermes: the unit tests' board is the emulator in this process (test/helpers/in-process-board.ts)",
);
rule(tests, /\.inflight\b|slotOf\(|phaseOf\(/, () => false, "a test reading the seat's in-flight table: await its events (test/helpers/monitor.ts)");

if (problems.length) {
  process.stderr.write(`one home:\n${problems.map((p) => `  ${p}`).join("\n")}\n`);
  process.exit(1);
}
process.stdout.write("one home: every rule in its home\n");
