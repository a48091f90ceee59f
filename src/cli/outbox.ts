// `hermes-bridge outbox list|replay`: the closes that did not land, and a way to retry them.
import { loadConfig } from "../config/load.js";
import { build } from "../daemon/build.js";
import { createLogger } from "../log/logger.js";
import { replayOutbox } from "../run/replay.js";

export interface OutboxOptions {
  config?: string;
  json?: boolean;
  flags: Record<string, string | undefined>;
}

function setup(o: OutboxOptions, env: NodeJS.ProcessEnv) {
  const config = loadConfig({ file: o.config, env, flags: o.flags });
  const log = createLogger({ level: "warn", format: "json", destination: process.stderr });
  return build(config, env, log);
}

export function outboxList(o: OutboxOptions, env: NodeJS.ProcessEnv = process.env, print: (s: string) => void = (s) => process.stdout.write(s)): number {
  const b = setup(o, env);
  const entries = b.outbox.open();
  if (o.json) {
    print(`${JSON.stringify(entries, null, 2)}\n`);
    return 0;
  }
  if (entries.length === 0) {
    print(`outbox empty (${b.outbox.path})\n`);
    return 0;
  }
  print(`${"STATE".padEnd(11)} ${"BOARD/TASK".padEnd(28)} ${"RUN".padEnd(5)} ${"INTENT".padEnd(9)} ${"WHEN".padEnd(24)} ERROR\n`);
  for (const e of entries)
    print(`${e.state.padEnd(11)} ${`${e.board}/${e.taskId}`.padEnd(28)} ${String(e.runId ?? "-").padEnd(5)} ${e.intent.type.padEnd(9)} ${e.updatedAt.padEnd(24)} ${(e.error ?? "").slice(0, 100)}\n`);
  return 0;
}

export async function outboxReplay(o: OutboxOptions, env: NodeJS.ProcessEnv = process.env, print: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const b = setup(o, env);
  const items = await replayOutbox(b.outbox, b.closer);
  for (const i of items) print(`${i.entry.board}/${i.entry.taskId} run ${i.entry.runId ?? "-"} ${i.entry.intent.type}: ${i.result}\n`);
  if (items.length === 0) print("nothing to replay\n");
  const bad = items.filter((i) => i.result === "dead" || i.result === "failed" || i.result === "alert_failed").length;
  return bad > 0 ? 1 : 0;
}
