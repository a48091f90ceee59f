import { opsConfig, printWarnings } from "./ops-config.js";
import { httpToken } from "../config/http-token.js";
import { spendText } from "../observe/fleet.js";
import type { StatusSnapshot } from "../observe/snapshot.js";
import { ExitError } from "../errors/index.js";
import { processStartTime } from "../process/liveness.js";
import { termSafe } from "../result/text.js";
import { readSmallFile } from "../state/read.js";
import { statePath } from "../state/layout.js";

export interface StatusOptions {
  config?: string;
  json?: boolean;
  flags: Record<string, string | undefined>;
}

async function fetchStatus(o: StatusOptions, env: NodeJS.ProcessEnv): Promise<{ s: StatusSnapshot; source: string; running: boolean }> {
  const c = await opsConfig(o, env, { seat: true });
  printWarnings(c);
  if (c.http.port !== undefined) {
    const url = `http://${c.http.host}:${c.http.port}/status`;
    try {
      const t = httpToken(c, env);
      const token = "token" in t ? t.token : undefined;
      const res = await (await import("undici")).request(url, {
        headersTimeout: 3000,
        bodyTimeout: 3000,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
      if (res.statusCode === 200) return { s: (await res.body.json()) as StatusSnapshot, source: url, running: true };
      await res.body.dump();
    } catch {
      // daemon not answering: fall back to the last written file
    }
  }
  const f = statePath(c.stateDir, "status");
  const r = await readSmallFile(f, 4 * 1024 * 1024);
  if ("error" in r) throw new ExitError(1, `cannot read ${f}: ${r.error}`);
  if (r.text === null) throw new ExitError(1, `no status: the daemon is not answering and ${f} does not exist (has it ever run with this state dir?)`);
  let s: StatusSnapshot;
  try {
    s = JSON.parse(r.text) as StatusSnapshot;
  } catch (err) {
    throw new ExitError(1, `${f} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  return { s, source: f, running: typeof s.pid === "number" && processStartTime(s.pid) !== null && !s.stopping };
}

export async function statusCommand(
  o: StatusOptions,
  env: NodeJS.ProcessEnv = process.env,
  print: (s: string) => void = (s) => process.stdout.write(s),
): Promise<number> {
  const { s, source, running } = await fetchStatus(o, env);
  if (o.json) {
    print(`${JSON.stringify({ ...s, running }, null, 2)}\n`);
    return 0;
  }
  if (!running) print(`NOT RUNNING: the daemon that wrote this status (pid ${s.pid ?? "?"}) is gone; what follows is its last snapshot.\n`);
  // An auth pause has no end time: it lasts "until an operator fixes it".
  const until = s.seat.pausedUntil && /^\d/.test(s.seat.pausedUntil) ? `until ${s.seat.pausedUntil}` : (s.seat.pausedUntil ?? "");
  // What the seat is doing: paused; working on its runs in flight; or waiting for ready tasks to claim.
  const busy = s.runs.length > 0 ? `working on ${s.runs.length} run${s.runs.length === 1 ? "" : "s"}` : "idle, claiming ready tasks";
  const pause = s.seat.paused ? `PAUSED ${until} (${termSafe(s.seat.reason ?? "", 300)})` : busy;
  const who = s.seat.name && s.seat.name !== s.seat.assignee ? `seat ${s.seat.name} (lane ${s.seat.assignee}, ${s.seat.agent})` : `seat ${s.seat.assignee}`;
  print(`${who} on ${s.boards.join(", ")} — ${pause}${s.stopping ? ", stopping" : ""}; healthy: ${s.healthy && running ? "yes" : "no"}\n`);
  if (s.seat.fix) print(`fix: ${termSafe(s.seat.fix, 2000)}\n`);
  if (s.seat.isolation)
    print(`isolation: ${termSafe(s.seat.isolation.mode, 20)}${s.seat.isolation.mode !== "bwrap" ? ` (${termSafe(s.seat.isolation.why, 500)})` : ""}\n`);
  // The caps, as isolation: a cgroup or a scope by name, the weaker fallback and none with their why.
  if (s.seat.limits) {
    const l = s.seat.limits;
    const weak = l.mode === "rlimit" || l.mode === "none";
    print(
      `limits: ${termSafe(l.mode, 20)}${weak ? ` — ${l.mode === "rlimit" ? "weaker, per process" : "runs are not capped"}: ${termSafe(l.why, 1200)}` : ""}\n`,
    );
  }
  if (s.seat.network) {
    const blocked = s.seat.network.blocked.slice(0, 10);
    const refused = blocked.map((b) => `${termSafe(b.host, 253)}:${b.port} ×${b.count} (last ${b.last})${b.housekeeping ? " (the CLI's housekeeping)" : ""}`);
    print(`network: ${termSafe(s.seat.network.mode, 20)}${refused.length ? `; refused since start: ${refused.join(", ")}` : ""}\n`);
    // A way through only for a public name the bridge may suggest (never an address, a local or a metadata name).
    const advice = [...new Set(blocked.flatMap((b) => (b.advice ? [termSafe(b.advice, 253)] : [])))];
    if (advice.length) print(`  to let one through: ${advice.map((a) => `"${a}"`).join(", ")} in agent.isolation.allowHosts, then restart the seat\n`);
  }
  if (s.usage) print(`spent today: ${spendText(s.usage.today)}; last 5 h: ${spendText(s.usage.window5h)}${s.seat.budget ? ` — ${s.seat.budget}` : ""}\n`);
  print(`as of ${s.at} (from ${source})\n\n`);
  if (s.runs.length === 0) print("no runs in flight\n");
  else {
    print(`${"TASK".padEnd(24)} ${"RUN".padEnd(5)} ${"PHASE".padEnd(10)} ${"AGE".padEnd(7)} ${"LAST HEARTBEAT".padEnd(25)} ${"DEADLINE".padEnd(25)} NOTE\n`);
    for (const r of s.runs)
      print(
        `${`${r.board}/${r.task}`.padEnd(24)} ${String(r.runId ?? "-").padEnd(5)} ${r.phase.padEnd(10)} ${`${r.ageSeconds}s`.padEnd(7)} ${(r.lastHeartbeat ?? "-").padEnd(25)} ${(r.deadline ?? "-").padEnd(25)} ${termSafe(r.lastNote ?? "", 60)}${r.adopted ? " (adopted)" : ""}\n${r.title ? `${" ".repeat(25)}${termSafe(r.title, 100)}\n` : ""}`,
      );
  }
  print(
    `\noutbox backlog: ${s.outbox.backlog} (${s.outbox.path})${s.outbox.alertsQueued ? `; ${s.outbox.alertsQueued} alert(s) waiting for the webhook` : ""}\n`,
  );
  for (const o2 of s.orphans) print(`running for this seat with no journal entry (not touched): ${o2.board}/${o2.taskId}\n`);
  for (const q of s.quarantined ?? []) print(`quarantined state file: ${termSafe(q.file)} — ${termSafe(q.why)}\n`);
  if (s.lastErrors.length) print(`last errors:\n${s.lastErrors.map((e) => `  ${e.at} ${termSafe(e.what, 300)}`).join("\n")}\n`);
  return 0;
}
