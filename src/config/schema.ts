// The config's single source of truth (zod). Every object is strict: an unknown key is an error (with
// a did-you-mean, see load.ts). Defaults here are the documented defaults; values that depend on the
// TTL (claim.safetySeconds, heartbeat.intervalSeconds, agent.wrapUpSeconds) are left unset unless the
// user set them and are derived per claim (timing.ts).
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { splitCommand } from "./command.js";

const slug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "a board slug: 1-64 chars, lowercase letters, digits, '-' or '_', not starting with '-' or '_'");
/** An argv; YAML may also give it as one string, split like a shell would ("python3 /opt/hermes/hermes"). */
const argv = z.preprocess((v) => (typeof v === "string" ? splitCommand(v) : v), z.array(z.string().min(1)).min(1, "at least the program name"));
/** A list; YAML may also give one scalar (`boards: b1`). */
const list = <T extends z.ZodType>(item: T) => z.preprocess((v) => (typeof v === "string" ? [v] : v), z.array(item));
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name");
const seconds = z.number().positive();

const agentCommon = {
  /** Extra variables set for the agent (values are literal). */
  env: z.record(envName, z.string()).default({}),
  /** Variable names passed through from the bridge's environment (allow-list). */
  passEnv: list(envName).default([]),
  /** Max characters of stdout/stderr kept in memory (the tail). */
  outputCapBytes: z
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  killGraceSeconds: seconds.default(10),
  /** No agent event for this long → the run is stopped as stalled. 0 = off. */
  stallSeconds: z.number().min(0).default(600),
  /** A CLI that printed its final result and does not exit within this is stopped; the result counts. */
  afterResultSeconds: seconds.default(15),
  /** Polite stop this long before the deadline (default min(60, ttl/8)). */
  wrapUpSeconds: seconds.optional(),
  /** Continue a cut run's session on the next claim of the same task. */
  resume: z.boolean().default(true),
  /** Runs of one task that may resume its session; then the task is blocked for a human decision. */
  resumeBudget: z.number().int().min(1).default(5),
  /** Prompt template file; defaults to the bundled prompt for the agent kind. */
  promptFile: z.string().optional(),
  /** Cap of the rendered prompt (stdin, never argv), with a visible marker past it. */
  promptMaxBytes: z
    .number()
    .int()
    .min(4096)
    .default(1024 * 1024),
};

const CommandAgent = z.strictObject({ kind: z.literal("command"), command: argv, ...agentCommon });

const ClaudeCodeAgent = z.strictObject({
  kind: z.literal("claude-code"),
  command: argv.default(["claude"]),
  permissionMode: z.enum(["acceptEdits", "dontAsk", "bypassPermissions", "default", "plan", "auto"]).default("acceptEdits"),
  maxTurns: z.number().int().min(1).default(200),
  model: z.string().optional(),
  /** Extra --allowedTools rules (mcp__task is always allowed). */
  allowedTools: list(z.string()).default([]),
  /** Per-seat CLAUDE_CONFIG_DIR (login + sessions); default <stateDir>/claude. */
  configDir: z.string().optional(),
  ...agentCommon,
});

const CodexAgent = z.strictObject({
  kind: z.literal("codex"),
  command: argv.default(["codex"]),
  sandbox: z.enum(["read-only", "workspace-write", "danger-full-access"]).default("workspace-write"),
  model: z.string().optional(),
  /** Per-seat CODEX_HOME (not under /tmp); default <stateDir>/codex. */
  home: z.string().optional(),
  /** Extra `-c key=value` overrides (e.g. a model provider). */
  config: list(z.string()).default([]),
  ...agentCommon,
});

const LocalLlmAgent = z.strictObject({
  kind: z.literal("local-llm"),
  baseUrl: z.url({ protocol: /^https?$/, error: "an http(s) URL ending in /v1" }),
  model: z.string().min(1),
  /** Env var holding the API key (any non-empty value for Ollama). */
  apiKeyEnv: envName.optional(),
  maxSteps: z.number().int().min(1).default(40),
  maxTokens: z.number().int().min(1000).default(500_000),
  idleTimeoutSeconds: seconds.default(120),
  temperature: z.number().min(0).max(2).default(0.2),
  /** Programs the model may run with run_command (no shell): "make", or a program and its first argument ("git status"). */
  allowCommands: list(z.string().min(1)).default([]),
  commandTimeoutSeconds: seconds.default(120),
  /** Bound of the saved message history (characters of JSON). */
  historyMaxChars: z.number().int().min(10_000).default(400_000),
  ...agentCommon,
});

export const AGENT_KINDS = ["command", "claude-code", "codex", "local-llm"] as const;
export const AgentSchema = z.discriminatedUnion("kind", [CommandAgent, ClaudeCodeAgent, CodexAgent, LocalLlmAgent]);

export const WORKSPACE_MODES = ["auto", "board", "mapped", "checkout"] as const;
const workspaceMode = z.enum(WORKSPACE_MODES);

const Workspace = z.strictObject({
  /** board | mapped | checkout, or auto (board when the claimed path exists here, else mapped / checkout). A map per board slug is accepted. */
  mode: z.union([workspaceMode, z.record(slug, workspaceMode)]).default("auto"),
  /** Directories (board paths) a task's workspace may be in, besides Hermes's own workspaces roots. */
  allowedRoots: list(z.string().min(1)).default([]),
  /** Board path prefix → local path where the board's files are mounted (longest prefix wins). */
  pathMap: z.record(z.string().min(1), z.string().min(1)).default({}),
  /** Local working copies for checkout mode; default <stateDir>/checkouts. */
  localRoot: z.string().optional(),
  /** Git repository per board slug or Hermes project id, for checkout mode. */
  repos: z.record(z.string().min(1), z.string().min(1)).default({}),
  /** Commit and push the task branch at every close (checkout mode). */
  push: z.boolean().default(true),
  /** Checkout mode pushes only to branches with this prefix (or named in pushBranches); a task's other branch is the base. */
  branchPrefix: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*\/$/, "a branch prefix ending in '/' (e.g. hermes/)")
    .default("hermes/"),
  /** Further branches checkout mode may push to (exact names). */
  pushBranches: list(z.string().min(1)).default([]),
  /** The bridge's own git (checkout mode, the gate): nothing of a work tree's config runs; what it may use is named here. */
  git: z
    .strictObject({
      /** core.sshCommand for fetch/push (default: ssh). */
      sshCommand: z.string().min(1).optional(),
      /** Hooks the operator wants to run on the bridge's commits (default: none). */
      hooksPath: z.string().min(1).optional(),
      /** A credential helper for fetch/push (default: none). */
      credentialHelper: z.string().min(1).optional(),
      /** Variables git may see for its credentials (default: none beyond PATH, HOME, locale, SSH_AUTH_SOCK). */
      passEnv: list(envName).default([]),
    })
    .prefault({}),
  /** How a deliverable reaches the board host when the CLI runs elsewhere: argv with {file}, {name}, {dir}, {task}. */
  uploadCommand: argv.optional(),
  /** The directory on the board host {dir} stands for (default: /tmp/hermes-bridge-uploads/<task>). */
  uploadDir: z.string().optional(),
});

const Claim = z.strictObject({
  ttlSeconds: z.number().int().min(1).default(900),
  /** Default min(60, ttl/4) of the TTL used for the claim. */
  safetySeconds: z.number().min(0).optional(),
  /** Upper bound for a per-task TTL (a task's max runtime + safety). */
  maxTtlSeconds: z
    .number()
    .int()
    .min(1)
    .default(4 * 3600),
});

const Gate = z.strictObject({
  /** Verification commands run in the workspace after the agent asks to complete. */
  commands: list(z.string().min(1)).default([]),
  /** Also run the task body's `## Verification` block (task text is untrusted: off by default). */
  bodyVerification: z.boolean().default(false),
  /** With bodyVerification: only body commands matching one of these run (a prefix, or /regex/). */
  allowedCommands: list(z.string().min(1)).default([]),
  timeoutSeconds: seconds.default(600),
  outputTailChars: z.number().int().min(200).default(4000),
  requireChanges: z.boolean().default(false),
  allowDirty: z.boolean().default(false),
  minItems: z.number().int().min(0).default(0),
});

const Hermes = z.strictObject({
  command: argv.default(["hermes"]),
  /** Sets HERMES_HOME for the CLI. */
  home: z.string().optional(),
  env: z.record(envName, z.string()).default({}),
  passEnv: list(envName).default([]),
  callTimeoutSeconds: seconds.default(150),
  textCapBytes: z
    .number()
    .int()
    .min(1024)
    .max(100_000)
    .default(64 * 1024),
  retry: z
    .strictObject({
      retries: z.number().int().min(0).max(20).default(4),
      minDelayMs: z.number().int().min(0).default(500),
      maxDelayMs: z.number().int().min(0).default(8000),
      deadlineSeconds: seconds.default(300),
    })
    .prefault({}),
});

export const baseShape = {
  boards: z.preprocess((v) => (typeof v === "string" ? [v] : v), z.array(slug).min(1, "name at least one board")),
  assignee: z
    .string()
    .min(1)
    .transform((s) => s.toLowerCase()),
  /** Author of comments and of the CLI's BLOCKED: comments; defaults to the assignee. */
  author: z.string().min(1).optional(),
  /** Hermes profile names that must never be used as the bridge's assignee. */
  reservedAssignees: list(z.string()).default([]),
  hermes: Hermes.prefault({}),
  claim: Claim.prefault({}),
  heartbeat: z.strictObject({ intervalSeconds: seconds.optional() }).prefault({}),
  discovery: z
    .strictObject({
      sweepSeconds: seconds.default(60),
      watch: z.boolean().default(true),
      debounceMs: z.number().int().min(0).default(200),
      watchRestartMaxSeconds: seconds.default(30),
    })
    .prefault({}),
  concurrency: z.number().int().min(1).max(64).default(1),
  gate: Gate.prefault({}),
  workspace: Workspace.prefault({}),
  /** After a usage/rate limit the seat claims nothing until the reset time plus this margin. */
  seat: z.strictObject({ limitMarginSeconds: z.number().min(0).default(60) }).prefault({}),
  stateDir: z.string().optional(),
  webhook: z
    .strictObject({
      url: z.url({ protocol: /^https?$/, error: "an http(s) URL" }).optional(),
      /** Name of the env var that holds the HMAC secret (never the secret itself). */
      secretEnv: envName.optional(),
      timeoutSeconds: seconds.default(10),
      retries: z.number().int().min(0).max(10).default(3),
      /** Alerts waiting for delivery at most (the oldest are dropped to the dead-letter log past it). */
      queueSize: z.number().int().min(1).default(1000),
    })
    .prefault({}),
  secrets: z
    .strictObject({
      /** Env var names whose literal values are redacted from everything posted to the board. */
      env: list(envName).default([]),
      /** Also redact the values of secret-looking variables of the bridge's environment (*_KEY, *_TOKEN, …). */
      fromEnvironment: z.boolean().default(true),
    })
    .prefault({}),
  log: z
    .strictObject({
      level: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
      format: z.enum(["auto", "json", "pretty"]).default("auto"),
    })
    .prefault({}),
  shutdown: z.strictObject({ graceSeconds: z.number().min(0).default(30) }).prefault({}),
  /** Loopback observability server (/healthz, /metrics, /status); off unless a port is set. */
  http: z
    .strictObject({
      port: z.number().int().min(0).max(65535).optional(),
      host: z.string().default("127.0.0.1"),
    })
    .prefault({}),
};

function finish<T extends { assignee: string; author?: string | undefined; stateDir?: string | undefined; reservedAssignees: string[] }>(c: T) {
  return { ...c, author: c.author ?? c.assignee, stateDir: c.stateDir ?? join(homedir(), ".local", "state", "hermes-kanban-bridge", c.assignee) };
}

function reservedCheck(c: { assignee: string; reservedAssignees: string[] }, ctx: z.RefinementCtx): void {
  const reserved = new Set(["default", ...c.reservedAssignees.map((s) => s.toLowerCase())]);
  if (reserved.has(c.assignee))
    ctx.addIssue({
      code: "custom",
      path: ["assignee"],
      message: `'${c.assignee}' is a Hermes profile name: the gateway would spawn a Hermes worker for these tasks; choose a lane name that is not a profile`,
    });
}

/** What `status` and `outbox` need: everything but the agent. */
export const OpsConfigSchema = z
  .strictObject({ ...baseShape, agent: z.unknown().optional() })
  .superRefine(reservedCheck)
  .transform(finish);

export const ConfigSchema = z
  .strictObject({ ...baseShape, agent: AgentSchema })
  .superRefine(reservedCheck)
  .transform(finish);

/** Where a value came from (doctor prints it; conflicts name it). */
export interface Provenance {
  /** Config path ("claim.ttlSeconds") → how the user set it ("--ttl 120", "HERMES_BRIDGE_TTL=120", "claim.ttlSeconds in config.yaml"). */
  given: Record<string, string>;
}

export type Config = z.output<typeof ConfigSchema> & { provenance?: Provenance };
export type OpsConfig = z.output<typeof OpsConfigSchema> & { provenance?: Provenance };
export type ConfigInput = z.input<typeof ConfigSchema>;
export type AgentConfig = Config["agent"];
