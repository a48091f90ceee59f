// Records the Hermes 0.21 transcripts: every call of the 0.20 recordings (test/fixtures/hermes-transcripts/,
// the shared ones and the bridge's own) run again, in the same order, against a real 0.21 CLI, each
// file on a fresh HERMES_HOME — same argv, env overrides and files, the task ids the 0.21 board gives
// in place of the recorded ones, short claims waited out as the first recording did. Written in the same
// format to test/fixtures/hermes-021/transcripts/, which the emulator's 0.21 mode replays
// (test/contract/transcript-replay.test.ts). Also re-records the 0.21 help texts the emulator prints.
// Usage: HERMES_BIN_021="python3 /path/to/0.21/hermes" npm run record:hermes-021
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readTranscript } from "../test/helpers/transcripts.js";

const bin = process.env.HERMES_BIN_021 ?? process.env.HERMES_BIN;
if (!bin) {
  console.error("HERMES_BIN_021 is not set (see DEVELOPERS.md, 'The real-Hermes lane')");
  process.exit(2);
}
const hermes = bin.split(/\s+/).filter(Boolean);
const FROM = "test/fixtures/hermes-transcripts";
const TO = "test/fixtures/hermes-021/transcripts";
const root = mkdtempSync(join(tmpdir(), "hkb-rec021-"));
const baseEnv = { PATH: process.env.PATH ?? "", HOME: root, TZ: "UTC", COLUMNS: "80" };
const quote = (a: string) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`);
const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
const versionOf = () => spawnSync(hermes[0] ?? "", [...hermes.slice(1), "--version"], { env: { ...baseEnv, HERMES_HOME: join(root, "v") }, encoding: "utf8" }).stdout.split("\n")[0] ?? "";
const version = versionOf();
if (!/v0\.21\./.test(version)) {
  console.error(`${bin} is ${version || "not a Hermes CLI"}, not 0.21`);
  process.exit(2);
}
const verbOf = (argv: string[]) => {
  for (let i = 1; i < argv.length; i += 1) if (argv[i] === "--board") i += 1;
    else if (!(argv[i] ?? "").startsWith("--board=")) return argv[i] ?? "";
  return "";
};

mkdirSync(TO, { recursive: true });
// HKB_RECORD_ONLY=own: only this script's own 0.21 scenario (bridge-021.txt).
const again = process.env.HKB_RECORD_ONLY === "own" ? [] : readdirSync(FROM).filter((f) => f.endsWith(".txt"));
for (const file of again) {
  const blocks = readTranscript(join(FROM, file));
  if (blocks.length === 0) continue;
  const home = join(root, `s${file.slice(0, 2).replace(/\D/g, "") || "20"}`);
  mkdirSync(home, { recursive: true });
  const shown = (s: string) => s.split(home).join(`<HERMES_HOMES>/${home.split("/").pop()}`).split(root).join("<HERMES_HOMES>");
  const ids = new Map<string, string>(); // recorded (0.20) id → this board's id
  const local = (a: string) => a.replace(/<HERMES_HOMES>\/s\d+/g, home).replace(/t_[0-9a-f]{8}/g, (id) => ids.get(id) ?? id);
  const out = [`# transcript: ${file} (Hermes 0.21)`, `# HERMES_HOME=${shown(home)}`, `# recorded by scripts/record-hermes-021.ts (${version}): the calls of ${FROM}/${file}, again`, "# each block: label, argv, env overrides, exit code, stdout, stderr (verbatim)", ""];
  let wait = 0;
  for (const b of blocks) {
    if (b.elided) continue;
    const verb = verbOf(b.argv);
    if (verb === "claim" && b.argv.includes("--ttl") && Number(b.argv[b.argv.indexOf("--ttl") + 1]) <= 5) wait = Math.max(wait, Number(b.argv[b.argv.indexOf("--ttl") + 1]) + 1);
    if (verb === "dispatch" && !b.argv.includes("--dry-run") && wait > 0) {
      await sleep(wait);
      wait = 0;
    }
    for (const f of b.files) {
      mkdirSync(dirname(local(f.path)), { recursive: true });
      writeFileSync(local(f.path), f.content);
      out.push(`## FILE ${shown(local(f.path))} ${JSON.stringify(f.content)}`, "");
    }
    const argv = b.argv.map(local);
    const env = Object.fromEntries(Object.entries(b.env).map(([k, v]) => [k, local(v)]));
    const t0 = performance.now();
    const r = spawnSync(hermes[0] ?? "", [...hermes.slice(1), ...argv], { env: { ...baseEnv, HERMES_HOME: home, ...env }, encoding: "utf8" });
    const wall = (performance.now() - t0) / 1000;
    if (/^(create|swarm)$/.test(verb)) {
      const rec = [...new Set(b.stdout.match(/t_[0-9a-f]{8}/g) ?? [])].filter((id) => !ids.has(id));
      const act = [...new Set(r.stdout.match(/t_[0-9a-f]{8}/g) ?? [])].filter((id) => ![...ids.values()].includes(id));
      rec.forEach((id, i) => {
        const a = act[i];
        if (a) ids.set(id, a);
      });
    }
    out.push(`### ${b.label}`, `$ hermes ${argv.map((a) => shown(quote(a))).join(" ")}`);
    if (Object.keys(env).length > 0) out.push(`env: ${shown(JSON.stringify(env))}`);
    out.push(`exit: ${r.status}   (wall ${wall.toFixed(2)}s)`);
    out.push("--- stdout ---", shown(r.stdout).replace(/\n$/, "") || "(empty)", "--- stderr ---", shown(r.stderr).replace(/\n$/, "") || "(empty)", "");
  }
  writeFileSync(join(TO, file), `${out.join("\n")}\n`);
  console.log(`wrote ${join(TO, file)} (${blocks.length} calls)`);
}
await recordOwn();
rmSync(root, { recursive: true, force: true });
// The help texts the 0.21 mode prints (src/emulator/help-text-021.ts).
spawnSync(process.execPath, ["scripts/record-hermes-help.mjs"], { stdio: "inherit", env: { ...process.env, HERMES_BIN: bin } });

/**
 * What 0.21 has that 0.20's recordings never called, as the bridge and its operators use it: completion
 * contracts (created, validated, a complete the contract refuses), the review hand-off (request-review
 * fenced with metadata and a reviewer, the live-claim guard and --force, reopen-review giving the task
 * back to its implementer, request-changes outside a review run), set-model, comment --max-len,
 * create --initial-status and the worker-scope guard on closes. Written to bridge-021.txt.
 */
async function recordOwn(): Promise<void> {
  const home = join(root, "s21");
  mkdirSync(home, { recursive: true });
  const shown = (t: string) => t.split(home).join("<HERMES_HOMES>/s21").split(root).join("<HERMES_HOMES>");
  const out = ["# transcript: bridge-021.txt (Hermes 0.21)", "# HERMES_HOME=<HERMES_HOMES>/s21", `# recorded by scripts/record-hermes-021.ts (${version}): what 0.21 adds that the bridge uses`, "# each block: label, argv, env overrides, exit code, stdout, stderr (verbatim)", ""];
  const call = (label: string, args: string[], env: Record<string, string> = {}) => {
    const t0 = performance.now();
    const r = spawnSync(hermes[0] ?? "", [...hermes.slice(1), ...args], { env: { ...baseEnv, HERMES_HOME: home, ...env }, encoding: "utf8" });
    const wall = (performance.now() - t0) / 1000;
    out.push(`### ${label}`, `$ hermes ${args.map((a) => shown(quote(a))).join(" ")}`);
    if (Object.keys(env).length > 0) out.push(`env: ${shown(JSON.stringify(env))}`);
    out.push(`exit: ${r.status}   (wall ${wall.toFixed(2)}s)`, "--- stdout ---", shown(r.stdout).replace(/\n$/, "") || "(empty)", "--- stderr ---", shown(r.stderr).replace(/\n$/, "") || "(empty)", "");
    return r.stdout;
  };
  const note = (text: string) => out.push(`## NOTE: ${text}`, "");
  const K = (...a: string[]) => ["kanban", "--board", "bridge", ...a];
  const idOf = (stdout: string) => (JSON.parse(stdout) as { id: string }).id;
  const runOf = (id: string) => String((JSON.parse(call(`show ${id} --json (its run)`, K("show", id, "--json"))) as { runs: { id: number }[] }).runs.at(-1)?.id ?? "");
  const fence = (id: string, run: string) => ({ HERMES_KANBAN_TASK: id, HERMES_KANBAN_RUN_ID: run });

  call("boards create bridge", ["kanban", "boards", "create", "bridge"]);
  note("completion contracts: created and validated");
  const local = idOf(call("create --completion-contract local-only", K("create", "c-local", "--assignee", "claude-bridge", "--completion-contract", "local-only", "--json")));
  const evidence = idOf(call("create --completion-contract evidence-required", K("create", "c-evidence", "--assignee", "claude-bridge", "--completion-contract", "evidence-required", "--json")));
  const repo = idOf(call("create --completion-contract OWNER/REPO", K("create", "c-repo", "--assignee", "claude-bridge", "--completion-contract", "acme/widgets", "--json")));
  const unassigned = idOf(call("create --completion-contract OWNER/REPO, unassigned", K("create", "c-repo-unassigned", "--completion-contract", "acme/widgets", "--json")));
  call("create --completion-contract <PR URL>", K("create", "c-pr", "--completion-contract", "https://github.com/acme/widgets/pull/7", "--json"));
  call("create --completion-contract invalid", K("create", "c-bad", "--completion-contract", "not a contract", "--json"));
  note("complete under each contract");
  call("claim local", K("claim", local, "--ttl", "600"));
  call("complete local-only", K("complete", local, "--summary", "Done locally.", "--metadata", '{"ok": true}'), fence(local, runOf(local)));
  call("claim evidence", K("claim", evidence, "--ttl", "600"));
  call("complete evidence-required without evidence", K("complete", evidence, "--summary", "Done.", "--metadata", '{"ok": true}'), fence(evidence, runOf(evidence)));
  call("claim repo", K("claim", repo, "--ttl", "600"));
  call("complete OWNER/REPO (assignee has no profile)", K("complete", repo, "--summary", "Done.", "--metadata", '{"ok": true}'), fence(repo, runOf(repo)));
  call("show --json after the refused complete", K("show", repo, "--json"));
  call("claim unassigned", K("claim", unassigned, "--ttl", "600"));
  call("complete OWNER/REPO with another repo's PR", K("complete", unassigned, "--summary", "Done.", "--metadata", '{"ok": true, "published_pr": "https://github.com/other/repo/pull/1"}'), fence(unassigned, runOf(unassigned)));
  call("complete OWNER/REPO without published_pr", K("complete", unassigned, "--summary", "Done.", "--metadata", '{"ok": true}'), fence(unassigned, runOf(unassigned)));
  call("show --json after two refused completes", K("show", unassigned, "--json"));
  note("review hand-off: fenced request-review with metadata and a reviewer, then reopen-review");
  const rv = idOf(call("create rv", K("create", "rv", "--assignee", "claude-bridge", "--json")));
  call("claim rv", K("claim", rv, "--ttl", "600"));
  const rvRun = runOf(rv);
  call("request-review with HERMES_KANBAN_TASK of another task", K("request-review", rv, "--summary", "x"), fence("t_00000000", rvRun));
  call("request-review bad --metadata", K("request-review", rv, "--summary", "x", "--metadata", "[1]"), fence(rv, rvRun));
  call("request-review (fenced) --summary --metadata --reviewer", K("request-review", rv, "--summary", "Implemented the parser; tests pass.", "--metadata", '{"ok": true, "changed_files": ["parser.py"]}', "--reviewer", "reviewer-bot"), fence(rv, rvRun));
  call("show rv --json (review)", K("show", rv, "--json"));
  call("list --json --status review", K("list", "--json", "--status", "review"));
  call("request-changes outside a review run", K("request-changes", rv, "add", "tests"));
  call("reopen-review --reason", K("reopen-review", rv, "--reason", "please add tests"));
  call("show rv --json (reopened)", K("show", rv, "--json"));
  call("claim rv again", K("claim", rv, "--ttl", "600"));
  const rvRun2 = runOf(rv);
  call("request-review again (fenced, no reviewer)", K("request-review", rv, "--summary", "Added the tests."), fence(rv, rvRun2));
  call("show rv --json (second review)", K("show", rv, "--json"));
  call("reopen-review without a reason", K("reopen-review", rv));
  call("reopen-review of a task not in review", K("reopen-review", rv));
  note("the live-claim guard: a running claimed task goes to review only for its run, or with --force");
  const rv2 = idOf(call("create rv2", K("create", "rv2", "--assignee", "claude-bridge", "--json")));
  call("claim rv2", K("claim", rv2, "--ttl", "600"));
  call("request-review without the run", K("request-review", rv2, "--summary", "steal"));
  call("request-review with a stale run id", K("request-review", rv2, "--summary", "late"), fence(rv2, "999"));
  call("request-review --force", K("request-review", rv2, "--summary", "operator override", "--force"));
  call("show rv2 --json", K("show", rv2, "--json"));
  const todo = idOf(call("create todo child", K("create", "child", "--parent", rv2, "--json")));
  call("request-review of a todo task", K("request-review", todo, "--summary", "x"));
  call("request-review unknown id", K("request-review", "t_deadbeef", "--summary", "x"));
  call("complete a review task (approval)", K("complete", rv2));
  call("show rv2 --json (approved)", K("show", rv2, "--json"));
  note("the task's model pin");
  const m = idOf(call("create --model --provider --skill", K("create", "pinned", "--model", "gpt-5", "--provider", "openai", "--skill", "translation", "--json")));
  call("set-model with a provider", K("set-model", m, "claude-opus", "--provider", "anthropic"));
  call("show --json (model pinned)", K("show", m, "--json"));
  call("set-model none", K("set-model", m, "none"));
  call("show --json (model cleared)", K("show", m, "--json"));
  call("set-model unknown id", K("set-model", "t_deadbeef", "gpt-5"));
  call("create --provider without --model", K("create", "bad-pin", "--provider", "openai", "--json"));
  note("comment --max-len, create --initial-status, the worker-scope guard");
  const c = idOf(call("create comment target", K("create", "comments", "--json")));
  call("comment --max-len 60", K("comment", c, "--max-len", "60", "--", "a long comment that the board trims to what --max-len allows, with a marker at its end"));
  call("comment --max-len 0", K("comment", c, "--max-len", "0", "x"));
  call("show --json (trimmed comment)", K("show", c, "--json"));
  call("create --initial-status blocked", K("create", "born-blocked", "--initial-status", "blocked", "--json"));
  call("create --initial-status running", K("create", "born-running", "--initial-status", "running", "--json"));
  const g = idOf(call("create guard", K("create", "guard", "--json")));
  call("claim guard", K("claim", g, "--ttl", "600"));
  call("block with HERMES_KANBAN_TASK of another task", K("block", g, "nope"), { HERMES_KANBAN_TASK: "t_00000000", HERMES_KANBAN_RUN_ID: "1" });
  call("complete with HERMES_KANBAN_TASK of another task", K("complete", g, "--summary", "nope"), { HERMES_KANBAN_TASK: "t_00000000", HERMES_KANBAN_RUN_ID: "1" });
  call("block guard (fenced)", K("block", g, "a reason"), fence(g, runOf(g)));
  call("unblock from inside a worker", K("unblock", g), { HERMES_KANBAN_TASK: g });
  call("unblock", K("unblock", g));
  writeFileSync(join(TO, "bridge-021.txt"), `${out.join("\n")}\n`);
  console.log(`wrote ${join(TO, "bridge-021.txt")}`);
}
