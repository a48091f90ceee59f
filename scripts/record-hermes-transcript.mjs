#!/usr/bin/env node
// Records what continuity needs from the real Hermes CLI into test/fixtures/hermes-transcripts/
// bridge-continuity.txt, in the shared transcripts' format (label, argv, exit, stdout, stderr; `## FILE`
// lines create a file before the next call): a task's max runtime (show --json and context), attach and
// attachments, complete deleting the scratch workspace while the attachment stays, unblock after a
// block, and the unblock-loop breaker. The replay test runs it against the emulator.
// Usage: HERMES_BIN="python3 /path/to/hermes" node scripts/record-hermes-transcript.mjs
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const bin = process.env.HERMES_BIN;
if (!bin) {
  console.error("HERMES_BIN is not set (see DEVELOPERS.md)");
  process.exit(2);
}
const hermes = bin.split(/\s+/).filter(Boolean);
const root = mkdtempSync(join(tmpdir(), "hkb-record-"));
const home = join(root, "s20");
mkdirSync(home);
const env = { PATH: process.env.PATH, HERMES_HOME: home, HOME: root, TZ: "UTC", COLUMNS: "80" };
const shown = (s) => s.split(root).join("<HERMES_HOMES>");
const quote = (a) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`);
const out = ["# transcript: bridge-continuity.txt", "# HERMES_HOME=<HERMES_HOMES>/s20", `# recorded by scripts/record-hermes-transcript.mjs (${execFileSync(hermes[0], [...hermes.slice(1), "--version"], { env, encoding: "utf8" }).split("\n")[0]})`, "# each block: label, argv, env overrides, exit code, stdout, stderr (verbatim)", ""];

function call(label, args) {
  const t0 = performance.now();
  const r = spawnSync(hermes[0], [...hermes.slice(1), ...args], { env, encoding: "utf8" });
  const wall = (performance.now() - t0) / 1000;
  out.push(`### ${label}`, `$ hermes ${args.map((a) => shown(quote(a))).join(" ")}`, `exit: ${r.status}   (wall ${wall.toFixed(2)}s)`);
  out.push("--- stdout ---", shown(r.stdout).replace(/\n$/, "") || "(empty)", "--- stderr ---", shown(r.stderr).replace(/\n$/, "") || "(empty)", "");
  return r.stdout;
}
const note = (text) => out.push(`## NOTE: ${text}`, "");
function file(path, content) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  out.push(`## FILE ${shown(path)} ${JSON.stringify(content)}`, "");
}
const K = (...a) => ["kanban", "--board", "bridge", ...a];
const idOf = (stdout) => JSON.parse(stdout).id;

call("boards create bridge", ["kanban", "boards", "create", "bridge"]);
note("a task's max runtime: where a worker can read it");
const a = idOf(call("create with --max-runtime 2h", K("create", "deliver a report", "--assignee", "claude-bridge", "--max-runtime", "2h", "--json")));
call("show --json (max runtime?)", K("show", a, "--json"));
call("context (max runtime)", K("context", a));
note("a deliverable attached while the task is claimed, then complete deletes the scratch workspace");
const claimed = call("claim", K("claim", a, "--ttl", "600"));
const ws = /Workspace: (.*)/.exec(claimed)?.[1]?.trim() ?? join(home, "kanban", "boards", "bridge", "workspaces", a);
file(join(ws, "report.md"), "# report\n");
call("attach report.md", K("attach", a, join(ws, "report.md"), "--name", "report.md"));
call("attachments --json", K("attachments", a, "--json"));
call("complete with an artifact path", K("complete", a, "--summary", "Wrote the report.", "--metadata", JSON.stringify({ ok: true, artifacts: [{ type: "file", label: "the report", path: "report.md" }] })));
note(`the scratch workspace is gone: ${existsSync(ws) ? "NO, it still exists" : "yes"}; the attachment stays`);
call("attachments --json after complete", K("attachments", a, "--json"));
note("a cut: block, unblock (continue), block again with the same kind → triage (unblock-loop breaker)");
const b = idOf(call("create cut", K("create", "long job", "--assignee", "claude-bridge", "--json")));
call("claim cut", K("claim", b, "--ttl", "600"));
call("block --kind capability (deadline cut)", K("block", "--kind", "capability", "--", b, "cause: environment\nwhat happened: cut at its deadline"));
call("unblock to continue", K("unblock", b));
call("claim again", K("claim", b, "--ttl", "600"));
call("block again, same kind", K("block", "--kind", "capability", "--", b, "cause: environment\nwhat happened: cut again"));
call("unblock a triage task", K("unblock", b));
const dest = "test/fixtures/hermes-transcripts/bridge-continuity.txt";
writeFileSync(dest, `${out.join("\n")}\n`);
console.log(`wrote ${dest}`);
