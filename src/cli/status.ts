// `hermes-bridge status [--json]`: the seat, runs in flight, outbox backlog, last errors — from the
// running daemon's HTTP endpoint when http.port is set, else from <stateDir>/status.json.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { request } from "undici";
import { loadConfig } from "../config/load.js";
import type { StatusSnapshot } from "../daemon/status.js";
import { ExitError } from "../errors/index.js";

export interface StatusOptions {
  config?: string;
  json?: boolean;
  flags: Record<string, string | undefined>;
}

async function fetchStatus(o: StatusOptions, env: NodeJS.ProcessEnv): Promise<{ s: StatusSnapshot; source: string }> {
  const c = loadConfig({ file: o.config, env, flags: o.flags });
  if (c.http.port !== undefined) {
    const url = `http://${c.http.host}:${c.http.port}/status`;
    try {
      const res = await request(url, { headersTimeout: 3000, bodyTimeout: 3000 });
      if (res.statusCode === 200) return { s: (await res.body.json()) as StatusSnapshot, source: url };
      await res.body.dump();
    } catch {
      // daemon not running: fall back to the last written file
    }
  }
  const f = join(c.stateDir, "status.json");
  if (!existsSync(f)) throw new ExitError(1, `no status: the daemon is not answering and ${f} does not exist (has it ever run with this state dir?)`);
  return { s: JSON.parse(readFileSync(f, "utf8")) as StatusSnapshot, source: f };
}

export async function statusCommand(o: StatusOptions, env: NodeJS.ProcessEnv = process.env, print: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const { s, source } = await fetchStatus(o, env);
  if (o.json) {
    print(`${JSON.stringify(s, null, 2)}\n`);
    return 0;
  }
  print(`seat ${s.seat.assignee} on ${s.boards.join(", ")} — ${s.seat.paused ? `PAUSED until ${s.seat.pausedUntil} (${s.seat.reason})` : "claiming"}${s.stopping ? ", stopping" : ""}; healthy: ${s.healthy ? "yes" : "no"}\n`);
  print(`as of ${s.at} (from ${source})\n\n`);
  if (s.runs.length === 0) print("no runs in flight\n");
  else {
    print(`${"TASK".padEnd(24)} ${"RUN".padEnd(5)} ${"PHASE".padEnd(10)} ${"AGE".padEnd(7)} ${"LAST HEARTBEAT".padEnd(25)} ${"DEADLINE".padEnd(25)} NOTE\n`);
    for (const r of s.runs)
      print(`${`${r.board}/${r.task}`.padEnd(24)} ${String(r.runId ?? "-").padEnd(5)} ${r.phase.padEnd(10)} ${`${r.ageSeconds}s`.padEnd(7)} ${(r.lastHeartbeat ?? "-").padEnd(25)} ${(r.deadline ?? "-").padEnd(25)} ${(r.lastNote ?? "").slice(0, 60)}${r.adopted ? " (adopted)" : ""}\n`);
  }
  print(`\noutbox backlog: ${s.outbox.backlog} (${s.outbox.path})\n`);
  for (const o2 of s.orphans) print(`running for this seat with no journal entry (not touched): ${o2.board}/${o2.taskId}\n`);
  if (s.lastErrors.length) print(`last errors:\n${s.lastErrors.map((e) => `  ${e.at} ${e.what}`).join("\n")}\n`);
  return 0;
}
