#!/usr/bin/env node
// The naive bridge the benchmark compares against: poll `list --json` every 5 s, claim, run the
// agent, heartbeat on a timer, complete. No watch, no fencing, no outbox — the obvious first version.
import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);
const hermes = JSON.parse(process.env.NAIVE_HERMES);
const agent = JSON.parse(process.env.NAIVE_AGENT);
const board = process.env.NAIVE_BOARD;
const assignee = process.env.NAIVE_ASSIGNEE;
const concurrency = Number(process.env.NAIVE_CONCURRENCY ?? 1);
const hbMs = Number(process.env.NAIVE_HB_MS ?? 2000);
const [cmd, ...pre] = hermes;
const kanban = (...args) => run(cmd, [...pre, "kanban", "--board", board, ...args], { maxBuffer: 64 << 20 });

async function work(task) {
  try {
    await kanban("claim", task.id, "--ttl", "900");
  } catch {
    return;
  }
  const hb = setInterval(() => kanban("heartbeat", task.id, "--note", "working").catch(() => {}), hbMs);
  await new Promise((resolve) => {
    const child = spawn(agent[0], agent.slice(1), { env: { ...process.env, BENCH_BODY: task.body ?? "" }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c) => {
      out = (out + c).slice(-4096);
    });
    child.on("exit", resolve);
  });
  clearInterval(hb);
  await kanban("complete", task.id, "--summary", "done").catch(() => {});
}

for (;;) {
  try {
    const { stdout } = await kanban("list", "--json", "--status", "ready", "--assignee", assignee);
    const tasks = JSON.parse(stdout);
    for (let i = 0; i < tasks.length; i += concurrency) await Promise.all(tasks.slice(i, i + concurrency).map(work));
  } catch {
    // try again next poll
  }
  await new Promise((r) => setTimeout(r, 5000));
}
