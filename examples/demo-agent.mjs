#!/usr/bin/env node
// The scripted demo agent (no network, no credentials). It follows the command-agent protocol:
// reads $HERMES_BRIDGE_CONTEXT, prints progress lines, writes its outcome to $HERMES_BRIDGE_RESULT.
// What it does is chosen by a marker in the task body: DEMO:complete | DEMO:block | DEMO:crash | DEMO:slow
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ctx = JSON.parse(readFileSync(process.env.HERMES_BRIDGE_CONTEXT, "utf8"));
const body = ctx.task.body ?? "";
const mode = /DEMO:(\w+)/.exec(body)?.[1] ?? "complete";
const retry = ctx.prior_runs.length > 0;
const say = (s) => console.log(s);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const done = (summary, items) =>
  writeFileSync(process.env.HERMES_BRIDGE_RESULT, JSON.stringify({ outcome: "complete", summary, result: { ok: true, status: "ok", items, metrics: { created: items }, note: summary, artifacts: [], error: null } }));

say(`reading ${ctx.task.id}: ${ctx.task.title}`);
await sleep(300);
if (mode === "crash") {
  say("about to fail");
  process.stderr.write("demo-agent: simulated crash (segfault in a tool)\n");
  process.exit(139);
}
if (mode === "block") {
  writeFileSync(process.env.HERMES_BRIDGE_RESULT, JSON.stringify({ outcome: "block", block: {
    cause: "spec undecided",
    what_happened: "The task asks for a license but does not say which one; the repository has none.",
    options: ["MIT (permissive)", "Apache-2.0 (patent grant)", "GPL-3.0 (copyleft)"],
    recommendation: "Apache-2.0: permissive and carries an explicit patent grant.",
    next_action: "Comment which license to use, then unblock the task.",
  } }));
  process.exit(0);
}
if (mode === "slow" && !retry) {
  for (let i = 1; i <= 60; i += 1) {
    say(`working slowly, step ${i}`);
    await sleep(500);
  }
}
writeFileSync(join(process.env.HERMES_BRIDGE_WORKSPACE, "greeting.txt"), "hello from the demo agent\n");
say("wrote greeting.txt");
done(retry ? "Finished on the second attempt after the first run lost its lease." : "Wrote greeting.txt in the workspace.", 1);
