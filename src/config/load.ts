// Config = defaults < YAML file < HERMES_BRIDGE_* env < flags, validated once by zod. Every value the
// user set is remembered with how it was set (provenance), so an error can name the flag, variable or
// file key, and `doctor` can print where each effective value came from.
import { type HttpTokenConfig, httpToken } from "./http-token.js";
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { ConfigError } from "../errors/index.js";
import { splitCommand } from "./command.js";
import { FLAGS, type FlagKind, envNameFor } from "./flags.js";
import { type Config, type OpsConfig, OpsConfigSchema, type Provenance, configSchemaFor } from "./schema.js";
import { DEFAULT_PROTOCOL, timingIssues } from "./timing.js";
import type { Protocol } from "./schema.js";
import { closest, knownKeys } from "./keys.js";
import { envWarnings } from "./env-check.js";

export { envNameFor, ENV_PREFIX } from "./flags.js";

function convert(raw: string, as: FlagKind, where: string): unknown {
  if (as === "list")
    return raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
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

function setPath(obj: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let cur = obj;
  for (const key of path.slice(0, -1)) {
    const next = cur[key];
    if (!next || typeof next !== "object" || Array.isArray(next)) cur[key] = {};
    cur = cur[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1];
  if (last) cur[last] = value;
}

/** Deep merge of plain objects (arrays and scalars replace). */
function merge(into: Record<string, unknown>, from: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(from)) {
    const cur = into[k];
    if (v && typeof v === "object" && !Array.isArray(v) && cur && typeof cur === "object" && !Array.isArray(cur))
      merge(cur as Record<string, unknown>, v as Record<string, unknown>);
    else into[k] = structuredClone(v);
  }
}

/** Leaf paths of a YAML document (maps of maps; records like agent.env count as leaves below their key). */
function leafPaths(obj: Record<string, unknown>, prefix: string[] = []): string[][] {
  const out: string[][] = [];
  for (const [k, v] of Object.entries(obj)) {
    const p = [...prefix, k];
    if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 0) out.push(p, ...leafPaths(v as Record<string, unknown>, p));
    else out.push(p);
  }
  return out;
}

export interface LoadOptions {
  file?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Flag values by flag name (without dashes), strings as typed on the command line. */
  flags?: Record<string, string | undefined>;
  /** Base object below the file (used by the demo's embedded default and by tests). */
  base?: Record<string, unknown>;
  /** The protocol's own timings, shorter for a test (never from the file or the environment). */
  protocol?: Partial<Protocol>;
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

/** The raw object (all layers merged) and how each value the user set was set. */
function layered(o: LoadOptions): { raw: Record<string, unknown>; given: Record<string, string> } {
  const raw: Record<string, unknown> = structuredClone(o.base ?? {});
  const given: Record<string, string> = {};
  if (o.file) {
    const doc = readConfigFile(o.file);
    // `board: x` in YAML is accepted for `boards: [x]`.
    if (doc.board !== undefined && doc.boards === undefined) {
      doc.boards = doc.board;
      delete doc.board;
    }
    merge(raw, doc);
    for (const p of leafPaths(doc)) given[p.join(".")] = `${p.join(".")} in ${basename(o.file)}`;
  }
  const env = o.env ?? {};
  for (const f of FLAGS) {
    const name = envNameFor(f.name);
    const v = env[name];
    if (v === undefined || v === "") continue;
    setPath(raw, f.path, convert(v, f.as, name));
    given[f.path.join(".")] = `${name}=${v}`;
  }
  for (const f of FLAGS) {
    const v = o.flags?.[f.name];
    if (v === undefined) continue;
    setPath(raw, f.path, convert(v, f.as, `--${f.name}`));
    given[f.path.join(".")] = `--${f.name} ${v}`;
  }
  // `agent.kind` defaults to the generic command agent.
  const agent = raw.agent;
  if (agent && typeof agent === "object" && !Array.isArray(agent) && (agent as Record<string, unknown>).kind === undefined)
    (agent as Record<string, unknown>).kind = "command";
  return { raw, given };
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let cur = raw;
  for (const k of path) {
    if (!cur || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return cur;
}

/** A key that must be given: "is required", and where it can be set (the flag and variable that set it, if any). */
function required(path: string): string {
  const f = FLAGS.find((x) => x.path.join(".") === path || x.path.join(".").startsWith(`${path}.`));
  return f ? `is required (in the config file, or --${f.name} / ${envNameFor(f.name)})` : "is required";
}

function issuesOf(err: z.ZodError, schema: z.ZodType, raw: Record<string, unknown>, given: Record<string, string>): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  for (const i of err.issues) {
    if (i.code === "unrecognized_keys") {
      const known = knownKeys(schema, i.path);
      for (const key of i.keys) {
        const best = closest(key, known);
        out.push({ path: [...i.path.map(String), key].join("."), message: `unknown key${best ? ` — did you mean '${best}'?` : ""}` });
      }
      continue;
    }
    const path = i.path.map(String).join(".");
    if (i.code === "invalid_type" && valueAt(raw, i.path) === undefined) {
      out.push({ path, message: required(path) });
      continue;
    }
    const how = given[path];
    out.push({ path, message: how && !how.startsWith(path) ? `${i.message} (set by ${how})` : i.message });
  }
  return out;
}

function checked<T>(schema: z.ZodType<T>, raw: Record<string, unknown>, given: Record<string, string>): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(issuesOf(parsed.error, schema, raw, given), { cause: parsed.error });
  return parsed.data;
}

/** Config checks that need the environment: a webhook secret that is named must exist; so must the HTTP token a reachable bind needs. */
function envIssues(c: { webhook: { secretEnv?: string | undefined } } & HttpTokenConfig, env: NodeJS.ProcessEnv): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  const name = c.webhook.secretEnv;
  if (name && !env[name])
    out.push({
      path: "webhook.secretEnv",
      message: `names ${name}, which is not set (or empty): alerts would go out unsigned; set ${name} or remove webhook.secretEnv`,
    });
  const t = httpToken(c, env);
  if ("issue" in t) out.push(t.issue);
  return out;
}

/**
 * The seat's config; `kinds` are the agent kinds it may name (agents/kinds.ts passes the list — each
 * kind's strict schema checks its own keys).
 */
export function loadConfigWith(kinds: readonly { schema: z.ZodObject }[], o: LoadOptions): Config {
  const { raw, given } = layered(o);
  const schema = configSchemaFor(kinds.map((k) => k.schema));
  const protocol: Protocol = { ...DEFAULT_PROTOCOL, ...o.protocol };
  const c = { ...(checked(schema, raw, given) as Config), protocol };
  const issues = [...timingIssues(c, given), ...envIssues(c, o.env ?? {})];
  if (issues.length > 0) throw new ConfigError(issues);
  const provenance: Provenance = { given, warnings: envWarnings(o.env ?? {}, schema), ...(o.file ? { file: resolve(o.file) } : {}) };
  return { ...c, provenance };
}

/**
 * For `usage`, `fleet`, `status` and `outbox`: everything but the agent (which they never start).
 * `seat: true` (status, outbox): the command is about one seat's state dir, so one must be named.
 */
export function loadOpsConfig(o: LoadOptions, opts: { seat?: boolean } = {}): OpsConfig {
  const { raw, given } = layered(o);
  const c = checked(OpsConfigSchema, raw, given);
  if (opts.seat && !c.seatNamed)
    throw new ConfigError([
      { path: "assignee", message: "this command reads one seat's state: name it with --assignee (or --state-dir, or a config that sets them)" },
    ]);
  return { ...c, provenance: { given, warnings: envWarnings(o.env ?? {}, OpsConfigSchema) } };
}
