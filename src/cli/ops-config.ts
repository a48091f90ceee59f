// The config of the commands that read a seat's state (`status`, `outbox`, `usage`, `fleet`): a config
// file, or only the seat's state dir (or its assignee). Without a file, the settings the seat's daemon
// recorded in its state dir at its last start (<stateDir>/settings.json: boards, the hermes command,
// http, webhook, fleet) stand in for it, below the flags and HERMES_BRIDGE_* variables — so
// `outbox replay --state-dir X` reaches the board the seat works, and `status --state-dir X` asks its
// daemon. The file is state: read bounded, parsed by the same schema, and one that does not fit is
// ignored with a warning (the command then runs on the flags alone).
import { loadOpsConfig } from "../config/load.js";
import type { Config, OpsConfig } from "../config/schema.js";
import { ConfigError, ExitError } from "../errors/index.js";
import { parseSince } from "../observe/usage-report.js";
import { writeStateFile } from "../state/atomic.js";
import { statePath } from "../state/layout.js";
import { readSmallFile } from "../state/read.js";
import { escapeControls } from "../result/text.js";

export interface OpsOptions {
  config?: string;
  flags: Record<string, string | undefined>;
}

/** The keys a seat records: what the commands that read its state dir need, nothing of the agent. */
const RECORDED = [
  "boards",
  "assignee",
  "author",
  "reservedAssignees",
  "hermes",
  "seat",
  "stateDir",
  "webhook",
  "secrets",
  "http",
  "fleet",
  "serviceLevels",
] as const;

/** At `run`'s start: the settings the state-dir commands will read (0600, whole-file write). */
export function recordSeatSettings(c: Config): void {
  const picked = Object.fromEntries(RECORDED.map((k) => [k, c[k]]));
  writeStateFile(statePath(c.stateDir, "settings"), `${JSON.stringify(picked, null, 2)}\n`);
}

const withWarning = (c: OpsConfig, w: string): OpsConfig => ({
  ...c,
  provenance: { given: c.provenance?.given ?? {}, warnings: [...(c.provenance?.warnings ?? []), w] },
});

export async function opsConfig(o: OpsOptions, env: NodeJS.ProcessEnv, opts: { seat?: boolean } = {}): Promise<OpsConfig> {
  const first = loadOpsConfig({ file: o.config, env, flags: o.flags }, opts);
  if (o.config !== undefined || !first.seatNamed) return first;
  const file = statePath(first.stateDir, "settings");
  const r = await readSmallFile(file, 256 * 1024);
  if ("error" in r) return withWarning(first, `the seat's recorded settings are not used: ${r.error}`);
  if (r.text === null) return first;
  let doc: unknown;
  try {
    doc = JSON.parse(r.text);
  } catch {
    return withWarning(first, `the seat's recorded settings are not used: ${file} is not JSON`);
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) return withWarning(first, `the seat's recorded settings are not used: ${file} is not an object`);
  try {
    return loadOpsConfig({ base: doc as Record<string, unknown>, env, flags: o.flags }, opts);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const i = err.issues[0];
    return withWarning(first, `the seat's recorded settings are not used: ${file}: ${i?.path ?? "?"}: ${i?.message ?? "invalid"}`);
  }
}

/** Warnings of a loaded config (an unknown HERMES_BRIDGE_* variable, unused recorded settings), one line each on stderr. */
export function printWarnings(c: { provenance?: { warnings?: string[] | undefined } | undefined }, write = (s: string) => process.stderr.write(s)): void {
  for (const w of c.provenance?.warnings ?? []) write(`hermes-bridge: warning: ${escapeControls(w)}\n`);
}

/**
 * The options every report of the board's records shares (`usage`, `stats`): `--by` one of `keys`, `--since`
 * (default 7d) and the config with at least one board — each refused with a clear error naming the flag.
 */
export async function reportOptions<K extends string>(
  verb: string,
  o: OpsOptions & { by?: string | undefined; since?: string | undefined },
  keys: readonly K[],
  env: NodeJS.ProcessEnv,
  now: number,
): Promise<{ by: K; since: number; c: OpsConfig }> {
  const by = (o.by ?? "seat") as K;
  if (!keys.includes(by)) throw new ExitError(2, `${verb} --by: '${o.by}' is not one of ${keys.join(", ")}`);
  const since = parseSince(o.since ?? "7d", now);
  if (since === null) throw new ExitError(2, `${verb} --since: '${o.since}' is neither an ISO date nor a duration like 7d, 24h or 90m`);
  const c = await opsConfig(o, env);
  printWarnings(c);
  if (c.boards.length === 0)
    throw new ExitError(2, `${verb} reads the board's records: name the board (--board, a config's boards, or --state-dir of a seat that has run)`);
  return { by, since, c };
}
