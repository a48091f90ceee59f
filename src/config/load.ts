// Config = defaults < YAML file < HERMES_BRIDGE_* env < flags, validated once by zod.
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { splitCommand } from "./command.js";
import { ConfigError } from "../errors/index.js";
import { type Config, ConfigSchema } from "./schema.js";

/** Flag / env name → config path, value conversion. Same names for `--flag` and HERMES_BRIDGE_FLAG. */
const OVERRIDES: Record<string, { path: string[]; as: "list" | "argv" | "number" | "string" }> = {
  board: { path: ["boards"], as: "list" },
  assignee: { path: ["assignee"], as: "string" },
  author: { path: ["author"], as: "string" },
  hermes: { path: ["hermes", "command"], as: "argv" },
  "hermes-home": { path: ["hermes", "home"], as: "string" },
  agent: { path: ["agent", "kind"], as: "string" },
  "agent-command": { path: ["agent", "command"], as: "argv" },
  concurrency: { path: ["concurrency"], as: "number" },
  ttl: { path: ["claim", "ttlSeconds"], as: "number" },
  "heartbeat-interval": { path: ["heartbeat", "intervalSeconds"], as: "number" },
  "state-dir": { path: ["stateDir"], as: "string" },
  "webhook-url": { path: ["webhook", "url"], as: "string" },
  "log-level": { path: ["log", "level"], as: "string" },
  "log-format": { path: ["log", "format"], as: "string" },
  "http-port": { path: ["http", "port"], as: "number" },
};

export const ENV_PREFIX = "HERMES_BRIDGE_";

export function envNameFor(flag: string): string {
  return ENV_PREFIX + flag.toUpperCase().replace(/-/g, "_");
}

function convert(raw: string, as: "list" | "argv" | "number" | "string", where: string): unknown {
  if (as === "list") return raw.split(",").map((s) => s.trim()).filter(Boolean);
  if (as === "number") {
    const n = Number(raw);
    return raw.trim() !== "" && Number.isFinite(n) ? n : raw;
  }
  if (as === "argv") {
    try {
      return splitCommand(raw);
    } catch (err) {
      throw new ConfigError([{ path: where, message: (err as Error).message }], { cause: err });
    }
  }
  return raw;
}

function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let cur = obj;
  for (const key of path.slice(0, -1)) {
    const next = cur[key];
    if (!next || typeof next !== "object" || Array.isArray(next)) cur[key] = {};
    cur = cur[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1];
  if (last) cur[last] = value;
}

export interface LoadOptions {
  file?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Flag values by flag name (without dashes), strings as typed on the command line. */
  flags?: Record<string, string | undefined>;
  /** Base object below the file (used by the demo's embedded default). */
  base?: Record<string, unknown>;
}

export function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError([{ path: "(file)", message: `cannot read ${file}: ${(err as Error).message}` }], { cause: err });
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError([{ path: "(file)", message: `${file} is not valid YAML: ${(err as Error).message}` }], { cause: err });
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== "object" || Array.isArray(doc)) throw new ConfigError([{ path: "(file)", message: `${file} must hold a YAML mapping` }]);
  return doc as Record<string, unknown>;
}

export function loadConfig(o: LoadOptions): Config {
  const raw: Record<string, unknown> = structuredClone(o.base ?? {});
  if (o.file) Object.assign(raw, readConfigFile(o.file));
  // `board: x` in YAML is accepted for `boards: [x]`.
  if (typeof raw.board === "string" && raw.boards === undefined) {
    raw.boards = [raw.board];
    delete raw.board;
  }
  const env = o.env ?? {};
  for (const [flag, spec] of Object.entries(OVERRIDES)) {
    const name = envNameFor(flag);
    const v = env[name];
    if (v !== undefined && v !== "") setPath(raw, spec.path, convert(v, spec.as, name));
  }
  for (const [flag, spec] of Object.entries(OVERRIDES)) {
    const v = o.flags?.[flag];
    if (v !== undefined) setPath(raw, spec.path, convert(v, spec.as, `--${flag}`));
  }
  // `agent.kind` defaults to the generic command agent.
  if (raw.agent && typeof raw.agent === "object" && !Array.isArray(raw.agent) && (raw.agent as Record<string, unknown>).kind === undefined)
    (raw.agent as Record<string, unknown>).kind = "command";
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success)
    throw new ConfigError(
      parsed.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
      { cause: parsed.error },
    );
  return parsed.data;
}

export const OVERRIDE_FLAGS = Object.keys(OVERRIDES);
