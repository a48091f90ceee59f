// `hermes-bridge demo`: a temporary emulator board, a handful of seeded tasks, the daemon with the
// command agent and the bundled scripted demo agent, live progress, and a summary table.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HermesCliBoard } from "../board/index.js";
import { runProcess } from "../process/runner.js";
import { loadConfig } from "../agents/kinds.js";
import { bundledFile } from "../config/paths.js";
import { build } from "../daemon/build.js";
import { Daemon } from "../daemon/daemon.js";
import { silentLogger } from "../log/logger.js";
import { systemClock } from "../time/clock.js";
import { selfArgv } from "./self.js";

const SEEDS = [
  { key: "demo-complete", title: "Write a greeting file", body: "Create greeting.txt in the workspace. DEMO:complete" },
  { key: "demo-block", title: "Add a license", body: "Add a LICENSE file. DEMO:block" },
  { key: "demo-lease", title: "Long job that loses its lease", body: "A slow job; the demo expires its claim. DEMO:slow" },
  { key: "demo-crash", title: "Run a flaky tool", body: "The tool crashes. DEMO:crash" },
];

export async function demoCommand(o: { keep: boolean }, print: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "hermes-bridge-demo-"));
  // Passable (never listable): a bridge running as root runs the demo's agents as another user.
  chmodSync(dir, 0o711);
  const home = join(dir, "hermes");
  const emulator = [process.execPath, bundledFile("dist", "emulator", "bin.js")];
  const env = { ...process.env, HERMES_HOME: home };
  try {
    const made = await runProcess({ argv: [...emulator, "kanban", "boards", "create", "demo"], env: { PATH: process.env.PATH ?? "", HERMES_HOME: home } });
    // The demo's board is the bundled emulator: without its optional driver it says what to install.
    if (made.exitCode !== 0) {
      print(`The demo's board (the bundled emulator) did not start:\n${made.stderr}`);
      return 1;
    }
    const config = loadConfig({
      env: {},
      base: {
        boards: ["demo"],
        assignee: "demo-seat",
        hermes: { command: emulator, home },
        agent: { kind: "command", command: [process.execPath, bundledFile("examples", "demo-agent.mjs")] },
        claim: { ttlSeconds: 30, safetySeconds: 2 },
        heartbeat: { intervalSeconds: 1 },
        discovery: { watch: false },
        stateDir: join(dir, "state"),
        shutdown: { graceSeconds: 5 },
      },
    });
    const b = await build(config, env, silentLogger);
    const board = b.boards[0] as HermesCliBoard;
    const titles = new Map<string, string>();
    for (const s of SEEDS) {
      const t = await board.createIdempotent({ title: s.title, body: s.body, assignee: config.assignee, key: s.key });
      titles.set(t.id, t.title);
    }
    print(`Demo board 'demo' in ${home} with ${SEEDS.length} tasks; seat 'demo-seat' runs the scripted demo agent.\n\n`);
    const daemon = new Daemon({ ...b, once: true });
    const t0 = systemClock.now();
    let expired = false;
    const stamp = () => `${((systemClock.now() - t0) / 1000).toFixed(1).padStart(5)}s`;
    daemon.on("claimed", (e) => {
      print(`${stamp()}  claimed   ${e.taskId}  run ${e.runId}  ${titles.get(e.taskId) ?? ""}\n`);
      if (!expired && titles.get(e.taskId) === SEEDS[2]?.title) {
        expired = true;
        void expireClaim(emulator, home, e.taskId, print, stamp);
      }
    });
    daemon.on("heartbeat", (e) => print(`${stamp()}  heartbeat ${e.taskId}\n`));
    daemon.on("run:closed", (r) =>
      print(`${stamp()}  ${r.decision.padEnd(9)} ${r.taskId}  run ${r.runId}  → ${r.close}${r.cause ? ` (cause: ${r.cause})` : ""}\n`),
    );
    await daemon.start();
    await daemon.done;
    print("\nTask                                   Status    Runs  Last outcome\n");
    for (const [id, title] of titles) {
      const d = await board.show(id);
      const last = d.runs[d.runs.length - 1];
      print(`${`${id} ${title}`.slice(0, 38).padEnd(38)} ${d.task.status.padEnd(9)} ${String(d.runs.length).padEnd(5)} ${last?.outcome ?? "-"}\n`);
    }
    const me = selfArgv().join(" ");
    const open = b.outbox.open();
    print(`\nOutbox: ${open.length} open entr${open.length === 1 ? "y" : "ies"}`);
    print(
      open.some((e) => e.state === "lease_lost")
        ? ` — the run that lost its lease: its result was not applied (a later run redid the task); with no webhook configured the entry stays listed for an operator (${o.keep ? `\`${me} outbox list --state-dir ${join(dir, "state")}\`` : `\`${me} demo --keep\` keeps it for \`outbox list\``}).\n`
        : ".\n",
    );
    if (o.keep)
      print(`\nLook next: the block reasons (five-line template) with\n  HERMES_HOME=${home} node ${emulator[1]} kanban --board demo show <id> --json\n`);
    else print(`\nRun \`${me} demo --keep\` to keep the board and look at the block reasons afterwards.\n`);
    print(`Next: your first seat — \`${me} init --board <board> --seat <name> --agent <setup>\` (docs/first-seat.md).\n`);
    return 0;
  } finally {
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  }
}

/** Stands in for the gateway: moves board time past the claim's TTL and runs one dispatcher pass. */
async function expireClaim(emulator: string[], home: string, taskId: string, print: (s: string) => void, stamp: () => string): Promise<void> {
  await new Promise((r) => setTimeout(r, 1500));
  writeFileSync(join(home, ".emulator-clock-offset"), "3600");
  await runProcess({ argv: [...emulator, "kanban", "--board=demo", "dispatch", "--json"], env: { PATH: process.env.PATH ?? "", HERMES_HOME: home } });
  writeFileSync(join(home, ".emulator-clock-offset"), "0");
  print(`${stamp()}  gateway   reclaimed ${taskId} (its claim expired)\n`);
}
