#!/usr/bin/env node
// The deploy lane's board assertions, read from the board itself through its CLI (any argv prefix:
// `docker exec -u hermes <board> hermes`). Waits until every listed task is closed (or the deadline),
// then checks: each task done, exactly one completed run, no run still open; prints which seat did what. A
// task that broke the rule is named at the end of the output (what a failing case's tail shows), with its
// runs — outcome, seat, times, summary or error — and its whole `show` above.
//   board-check.mjs --ids <file> --wait <seconds> [--until-done] -- <hermes argv…>
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
if (sep < 0) throw new Error("usage: board-check.mjs --ids <file> --wait <s> -- <hermes argv…>");
const { values: opts } = parseArgs({ args: argv.slice(0, sep), options: { ids: { type: "string" }, wait: { type: "string", default: "0" }, "until-done": { type: "boolean" } } });
const hermes = argv.slice(sep + 1);
const ids = readFileSync(opts.ids ?? "", "utf8").split(/\s+/).filter(Boolean);
const deadline = Date.now() + Number(opts.wait) * 1000;

function kanban(...args) {
  const [cmd, ...rest] = hermes;
  const r = spawnSync(cmd, [...rest, "kanban", "--board", "main", ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
const show = (id) => kanban("show", id, "--json");
/** Every listed task's status from one `list` (a poll); `show` per task only for the verdict. */
function statuses() {
  const byId = new Map(kanban("list", "--json").map((t) => [t.id, t.status]));
  return ids.map((id) => ({ id, status: byId.get(id) ?? show(id).task?.status }));
}

function report() {
  return ids.map((id) => {
    const d = show(id);
    const runs = d.runs ?? [];
    const completed = runs.filter((r) => r.outcome === "completed");
    return {
      id,
      title: d.task?.title,
      status: d.task?.status,
      runs: runs.length,
      open: runs.filter((r) => r.ended_at == null).length,
      completed: completed.length,
      outcomes: runs.map((r) => r.outcome ?? r.status),
      seats: completed.map((r) => r.metadata?.bridge?.seat ?? "?"),
      runLines: runs.map(
        (r) =>
          `run ${r.id}: ${r.outcome ?? r.status ?? "open"} by ${r.metadata?.bridge?.seat ?? r.claimed_by ?? r.worker ?? "?"} ` +
          `(started ${r.started_at ?? "?"}, ended ${r.ended_at ?? "-"}) ${String(r.summary ?? r.error ?? "").replace(/\s+/g, " ").slice(0, 240)}`,
      ),
      last: String(runs.at(-1)?.summary ?? runs.at(-1)?.error ?? "").slice(0, 300),
      doc: d,
    };
  });
}

// --until-done: a block may still be lifted by the seat itself (a cut it continues): wait for done.
const closed = (t) => t.status === "done" || (!opts["until-done"] && (t.status === "blocked" || t.status === "triage"));
while (!statuses().every(closed) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2000));
const rows = report();
const problems = [];
for (const t of rows) {
  if (t.status !== "done") problems.push(`${t.id} is ${t.status} (runs: ${t.outcomes.join(", ")})`);
  else if (t.completed !== 1) problems.push(`${t.id} has ${t.completed} completed runs (${t.outcomes.join(", ")})`);
  if (t.open) problems.push(`${t.id} has ${t.open} run(s) still open`);
}
const bySeat = {};
for (const t of rows) for (const s of t.seats) bySeat[s] = (bySeat[s] ?? 0) + 1;
const broken = rows.filter((t) => t.status !== "done" || t.completed !== 1 || t.open);
console.log(JSON.stringify({ tasks: rows.length, done: rows.filter((t) => t.status === "done").length, bySeat, rows: rows.map(({ doc: _d, ...r }) => r) }, null, 1));
// The broken tasks' whole records (events, comments, runs), then — last, where a failing case's tail is — each named.
for (const t of broken) console.log(`\n== ${t.id} (${t.title ?? ""}): kanban show --json\n${JSON.stringify(t.doc, null, 1)}`);
console.log(`\n${rows.length} tasks, ${rows.length - broken.length} done exactly once, ${broken.length} broke the rule`);
for (const t of broken) {
  console.log(`BROKE THE RULE: ${t.id} "${t.title ?? ""}" — ${problems.filter((p) => p.startsWith(`${t.id} `)).join("; ")}`);
  for (const l of t.runLines) console.log(`  ${l}`);
}
process.exit(problems.length ? 1 : 0);
