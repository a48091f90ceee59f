// The config's single source of truth (zod). Defaults here are the documented defaults.
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";

const slug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "a board slug: 1-64 chars, lowercase letters, digits, '-' or '_', not starting with '-' or '_'");
const argv = z.array(z.string().min(1)).min(1, "at least the program name");
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name");

const CommandAgent = z.object({
  kind: z.literal("command"),
  command: argv,
  /** Extra variables set for the agent (values are literal). */
  env: z.record(envName, z.string()).default({}),
  /** Variable names passed through from the bridge's environment (allow-list). */
  passEnv: z.array(envName).default([]),
  /** Max characters of stdout/stderr kept in memory (the tail). */
  outputCapBytes: z.number().int().min(1024).default(1024 * 1024),
  killGraceSeconds: z.number().positive().default(10),
  /** Prompt template file; defaults to the bundled prompts/command.md. */
  promptFile: z.string().optional(),
});

const agentCommon = {
  env: z.record(envName, z.string()).default({}),
  passEnv: z.array(envName).default([]),
  outputCapBytes: z.number().int().min(1024).default(1024 * 1024),
  killGraceSeconds: z.number().positive().default(10),
};

const ClaudeCodeAgent = z.object({
  kind: z.literal("claude-code"),
  command: argv.default(["claude"]),
  permissionMode: z.enum(["acceptEdits", "dontAsk", "bypassPermissions", "default", "plan", "auto"]).default("acceptEdits"),
  maxTurns: z.number().int().min(1).default(200),
  model: z.string().optional(),
  /** Extra --allowedTools rules (mcp__task is always allowed). */
  allowedTools: z.array(z.string()).default([]),
  /** Per-seat CLAUDE_CONFIG_DIR (login + sessions); default <stateDir>/claude. */
  configDir: z.string().optional(),
  promptFile: z.string().optional(),
  ...agentCommon,
});

const CodexAgent = z.object({
  kind: z.literal("codex"),
  command: argv.default(["codex"]),
  sandbox: z.enum(["read-only", "workspace-write", "danger-full-access"]).default("workspace-write"),
  model: z.string().optional(),
  /** Per-seat CODEX_HOME (not under /tmp); default <stateDir>/codex. */
  home: z.string().optional(),
  /** Extra `-c key=value` overrides (e.g. a model provider). */
  config: z.array(z.string()).default([]),
  promptFile: z.string().optional(),
  ...agentCommon,
});

const LocalLlmAgent = z.object({
  kind: z.literal("local-llm"),
  baseUrl: z.url({ protocol: /^https?$/, error: "an http(s) URL ending in /v1" }),
  model: z.string().min(1),
  /** Env var holding the API key (any non-empty value for Ollama). */
  apiKeyEnv: envName.optional(),
  maxSteps: z.number().int().min(1).default(40),
  maxTokens: z.number().int().min(1000).default(500_000),
  idleTimeoutSeconds: z.number().positive().default(120),
  temperature: z.number().min(0).max(2).default(0.2),
  /** First words of commands the model may run with run_command (empty: none). */
  allowCommands: z.array(z.string()).default([]),
  commandTimeoutSeconds: z.number().positive().default(120),
  promptFile: z.string().optional(),
  ...agentCommon,
});

export const ConfigSchema = z
  .object({
    boards: z.array(slug).min(1, "name at least one board"),
    assignee: z
      .string()
      .min(1)
      .transform((s) => s.toLowerCase()),
    /** Author of comments and of the CLI's BLOCKED: comments; defaults to the assignee. */
    author: z.string().min(1).optional(),
    /** Hermes profile names that must never be used as the bridge's assignee (hazard 7). */
    reservedAssignees: z.array(z.string()).default([]),
    hermes: z
      .object({
        command: argv.default(["hermes"]),
        /** Sets HERMES_HOME for the CLI. */
        home: z.string().optional(),
        env: z.record(envName, z.string()).default({}),
        passEnv: z.array(envName).default([]),
        callTimeoutSeconds: z.number().positive().default(150),
        textCapBytes: z.number().int().min(1024).max(100_000).default(64 * 1024),
        retry: z
          .object({
            retries: z.number().int().min(0).max(20).default(4),
            minDelayMs: z.number().int().min(0).default(500),
            maxDelayMs: z.number().int().min(0).default(8000),
            deadlineSeconds: z.number().positive().default(300),
          })
          .prefault({}),
      })
      .prefault({}),
    claim: z
      .object({
        ttlSeconds: z.number().int().min(1).default(900),
        safetySeconds: z.number().min(0).default(60),
      })
      .prefault({}),
    heartbeat: z.object({ intervalSeconds: z.number().positive().default(120) }).prefault({}),
    discovery: z
      .object({
        sweepSeconds: z.number().positive().default(60),
        watch: z.boolean().default(true),
        debounceMs: z.number().int().min(0).default(200),
        watchRestartMaxSeconds: z.number().positive().default(30),
      })
      .prefault({}),
    concurrency: z.number().int().min(1).max(64).default(1),
    /** The success gate (seed 000: exit 0 and "the agent said done" are not success). */
    gate: z
      .object({
        /** Verification commands run in the workspace after the agent asks to complete (plus the body's `## Verification`). */
        commands: z.array(z.string().min(1)).default([]),
        timeoutSeconds: z.number().positive().default(600),
        outputTailChars: z.number().int().min(200).default(4000),
        requireChanges: z.boolean().default(false),
        allowDirty: z.boolean().default(false),
        minItems: z.number().int().min(0).default(0),
      })
      .prefault({}),
    /** After a usage/rate limit the seat claims nothing until the reset time plus this margin. */
    seat: z.object({ limitMarginSeconds: z.number().min(0).default(60) }).prefault({}),
    agent: z.discriminatedUnion("kind", [CommandAgent, ClaudeCodeAgent, CodexAgent, LocalLlmAgent]),
    stateDir: z.string().optional(),
    webhook: z
      .object({
        url: z.url({ protocol: /^https?$/, error: "an http(s) URL" }).optional(),
        /** Name of the env var that holds the HMAC secret (never the secret itself). */
        secretEnv: envName.optional(),
        timeoutSeconds: z.number().positive().default(10),
        retries: z.number().int().min(0).max(10).default(3),
      })
      .prefault({}),
    /** Env var names whose literal values are redacted from everything posted to the board. */
    secrets: z.object({ env: z.array(envName).default([]) }).prefault({}),
    log: z
      .object({
        level: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
        format: z.enum(["auto", "json", "pretty"]).default("auto"),
      })
      .prefault({}),
    shutdown: z.object({ graceSeconds: z.number().min(0).default(30) }).prefault({}),
    /** Loopback observability server (/healthz, /metrics, /status); off unless a port is set. */
    http: z
      .object({
        port: z.number().int().min(0).max(65535).optional(),
        host: z.string().default("127.0.0.1"),
      })
      .prefault({}),
  })
  .superRefine((c, ctx) => {
    if (c.heartbeat.intervalSeconds > c.claim.ttlSeconds / 4)
      ctx.addIssue({
        code: "custom",
        path: ["heartbeat", "intervalSeconds"],
        message: `must be at most claim.ttlSeconds / 4 (${c.claim.ttlSeconds / 4}); got ${c.heartbeat.intervalSeconds}`,
      });
    if (c.claim.safetySeconds >= c.claim.ttlSeconds)
      ctx.addIssue({ code: "custom", path: ["claim", "safetySeconds"], message: "must be smaller than claim.ttlSeconds" });
    const reserved = new Set(["default", ...c.reservedAssignees.map((s) => s.toLowerCase())]);
    if (reserved.has(c.assignee))
      ctx.addIssue({
        code: "custom",
        path: ["assignee"],
        message: `'${c.assignee}' is a Hermes profile name: the gateway would spawn a Hermes worker for these tasks (hazard 7); choose a lane name that is not a profile`,
      });
  })
  .transform((c) => ({
    ...c,
    author: c.author ?? c.assignee,
    stateDir: c.stateDir ?? join(homedir(), ".local", "state", "hermes-kanban-bridge", c.assignee),
  }));

export type Config = z.output<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;
export type AgentConfig = Config["agent"];
