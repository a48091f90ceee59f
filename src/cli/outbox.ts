// `hermes-bridge outbox list|replay|ack|drop`: the closes that did not land, a way to retry them, and a way to say
// a person dealt with one. Needs no agent settings. Text is shown with control characters escaped.
import { userInfo } from "node:os";
import { systemClock } from "../time/clock.js";
import { buildOps } from "../daemon/build.js";
import { createLogger } from "../log/logger.js";
import { replayOutbox } from "../outbox/replay.js";
import { type StateDirLock, lockStateDir } from "../state/lock.js";
import { termSafe } from "../result/text.js";
import { ensureStateDir } from "../state/dir.js";
import { opsConfig, printWarnings } from "./ops-config.js";

export interface OutboxOptions {
  config?: string;
  json?: boolean;
  flags: Record<string, string | undefined>;
}

async function setup(o: OutboxOptions, env: NodeJS.ProcessEnv, locked?: (lock: StateDirLock) => void) {
  const config = await opsConfig(o, env, { seat: true });
  printWarnings(config);
  ensureStateDir(config.stateDir);
  // A replay writes closes: never beside the seat's running daemon (it replays its own outbox).
  if (locked) locked(await lockStateDir(config.stateDir, { config: o.config ?? null, now: systemClock.now() }));
  const log = createLogger({ level: "warn", format: "json", destination: process.stderr });
  return buildOps(config, env, log);
}

export async function outboxList(
  o: OutboxOptions,
  env: NodeJS.ProcessEnv = process.env,
  print: (s: string) => void = (s) => process.stdout.write(s),
): Promise<number> {
  const b = await setup(o, env);
  const entries = b.outbox.open();
  if (o.json) {
    print(`${JSON.stringify(entries, null, 2)}\n`);
    return 0;
  }
  if (entries.length === 0) {
    print(`outbox empty (${b.outbox.path})\n`);
    return 0;
  }
  // ID: what `outbox ack|drop <id>` take (a unique prefix will do; --json has the whole id)
  print(`${"ID".padEnd(8)} ${"STATE".padEnd(11)} ${"BOARD/TASK".padEnd(28)} ${"RUN".padEnd(5)} ${"INTENT".padEnd(9)} ${"WHEN".padEnd(24)} ERROR\n`);
  for (const e of entries)
    print(
      `${e.id.slice(0, 8)} ${e.state.padEnd(11)} ${`${e.board}/${e.taskId}`.padEnd(28)} ${String(e.runId ?? "-").padEnd(5)} ${e.intent.type.padEnd(9)} ${e.updatedAt.padEnd(24)} ${termSafe(e.error ?? "", 100)}\n`,
    );
  return 0;
}

export async function outboxReplay(
  o: OutboxOptions,
  env: NodeJS.ProcessEnv = process.env,
  print: (s: string) => void = (s) => process.stdout.write(s),
): Promise<number> {
  let lock: StateDirLock | undefined;
  const b = await setup(o, env, (l) => {
    lock = l;
  });
  let items: Awaited<ReturnType<typeof replayOutbox>>;
  let delivered: boolean;
  try {
    b.alerts.start();
    items = await replayOutbox(b.outbox, b.closer);
    delivered = await b.alerts.drain(60_000);
    await b.alerts.stop();
  } finally {
    await lock?.release();
  }
  for (const i of items) print(`${i.entry.board}/${i.entry.taskId} run ${i.entry.runId ?? "-"} ${i.entry.intent.type}: ${i.result}\n`);
  if (items.length === 0) print("nothing to replay\n");
  if (!delivered) print("some alerts are still waiting for the webhook: they are sent by the next run or replay\n");
  const still = b.outbox
    .open()
    .filter((e) => items.some((i) => i.entry.id === e.id) && (e.state === "dead" || e.state === "failed" || (e.state === "lease_lost" && !e.alerted)));
  return still.length > 0 ? 1 : 0;
}

/** `outbox ack|drop <id> --reason <text>`: a person settles an entry by hand (journaled, no longer open). */
export async function outboxSettle(
  o: OutboxOptions & { id: string; how: "acknowledged" | "dropped"; reason: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
  print: (s: string) => void = (s) => process.stdout.write(s),
): Promise<number> {
  const verb = o.how === "acknowledged" ? "ack" : "drop";
  const reason = o.reason?.trim() ?? "";
  if (!reason) {
    print(`outbox ${verb}: --reason is required (what was done about entry ${o.id}, for the next person who reads the outbox)\n`);
    return 2;
  }
  const b = await setup(o, env);
  const r = b.outbox.settle(o.id, o.how, termSafe(reason, 500), userInfo().username);
  if ("refused" in r) {
    print(`outbox ${verb}: ${r.refused}\n`);
    return 2;
  }
  const e = r.settled;
  print(`${o.how} ${e.id} (${e.board}/${e.taskId} run ${e.runId ?? "-"} ${e.intent.type}, was ${e.state}): ${termSafe(reason, 200)}\n`);
  return 0;
}
