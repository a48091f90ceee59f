// The Claude Code agent kind: its config part, per-seat CLAUDE_CONFIG_DIR, `claude auth status`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { agentCommon, argv, list } from "../../config/fields.js";
import { bundledFile } from "../../config/paths.js";
import { processOptions, statefulTranslator, toolsCommand } from "../cli-agent.js";
import { agentEnv } from "../env.js";
import { PROBE_PROMPT, checked, loginWorks, probeSeat, verdictOf } from "../probe.js";
import { initialClaudeState, translateClaudeLine } from "./translate.js";
import { systemClock } from "../../time/clock.js";
import { chosenLogins, loginFix, loginHolds, loginStatus, overridingKey, shellLine } from "../cli-login.js";
import { defineKind } from "../kind.js";
import { TESTED_VERSIONS } from "../tested.js";
import { CLAUDE_HOME } from "./home.js";
import { statePath } from "../../state/layout.js";
import { urlEntry } from "../../egress/plan.js";

const schema = z.strictObject({
  kind: z.literal("claude-code"),
  command: argv.default(["claude"]),
  permissionMode: z.enum(["acceptEdits", "dontAsk", "bypassPermissions", "default", "plan", "auto"]).default("acceptEdits"),
  maxTurns: z.number().int().min(1).default(200),
  model: z.string().optional(),
  /** Extra --allowedTools rules (mcp__task is always allowed). */
  allowedTools: list(z.string()).default([]),
  /**
   * Which settings files the CLI reads (`--setting-sources`): `user` is the run's fresh home (the operator's
   * template). A workspace's `.claude/settings*.json` — which an earlier task may have written, hooks and all —
   * only with `project` / `local` here, for repositories the operator trusts.
   */
  settingSources: z.array(z.enum(["user", "project", "local"])).default(["user"]),
  /** The seat's login (the CLAUDE_CONFIG_DIR of `claude auth login`); default <stateDir>/claude. No run sees it: each gets a fresh home. */
  configDir: z.string().optional(),
  /** A folder copied into each run's fresh CLI home (settings.json, CLAUDE.md, plugins): the operator's, never a run's. */
  cliHome: z.string().optional(),
  ...agentCommon,
});

/** Where Claude Code takes a key or token from the environment (the proxy puts them in; the jail holds placeholders). */
const CLAUDE_KEYS = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"] as const;
/** Where a subscription's login (`claude auth login`) is refreshed. */
const LOGIN_HOSTS = ["console.anthropic.com", "platform.claude.com", "claude.ai"];
/** What the CLI calls that its work does not need (its metrics intake; CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC quiets most). */
const HOUSEKEEPING = ["http-intake.logs.us5.datadoghq.com"];

const home = (a: z.output<typeof schema>, stateDir: string) => a.configDir ?? statePath(stateDir, "claude");

/** Claude Code 2.1: `claude auth login` signs a subscription in (a browser); `setup-token` makes a long-lived token; an API key needs no login. */
function login(a: z.output<typeof schema>, stateDir: string) {
  const dir = home(a, stateDir);
  return [
    { id: "subscription", what: "a Claude subscription (a browser sign-in)", command: shellLine({ CLAUDE_CONFIG_DIR: dir }, [...a.command, "auth", "login"]) },
    {
      id: "token",
      what: "a subscription on a machine without a browser",
      command: shellLine({}, [...a.command, "setup-token"]),
      after: "then CLAUDE_CODE_OAUTH_TOKEN=<the token> in the seat's environment, and CLAUDE_CODE_OAUTH_TOKEN in agent.passEnv",
    },
    {
      id: "api-key",
      what: "an Anthropic API key",
      command: "ANTHROPIC_API_KEY=<key> in the seat's environment, and ANTHROPIC_API_KEY in agent.passEnv",
    },
  ];
}

/** One trivial request of the bridge's own through `login` (a claim's check; a refreshed login's trial), outside the jail. */
function probeWith(a: z.output<typeof schema>, ctx: { stateDir: string; env: NodeJS.ProcessEnv }, login: string) {
  const translate = statefulTranslator(
    initialClaudeState(null),
    (s, line) => translateClaudeLine(s, line, systemClock.now()),
    () => false,
  );
  return probeSeat({
    layout: CLAUDE_HOME,
    login,
    scratch: statePath(ctx.stateDir, "private"),
    make: (h, cwd) => ({
      // biome-ignore format: flag, value
      argv: [...a.command, "-p", "--output-format", "stream-json", "--verbose", "--max-turns", "1", "--strict-mcp-config",
        ...(a.model ? ["--model", a.model] : []), "--", PROBE_PROMPT],
      env: {
        ...agentEnv(ctx.env, a.passEnv, a.env),
        CLAUDE_CONFIG_DIR: h,
        HOME: cwd,
        TZ: "UTC",
        DISABLE_AUTOUPDATER: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      },
      translate: (line) => translate(line).events,
    }),
  });
}

export const claudeCodeKind = defineKind({
  kind: "claude-code",
  schema,
  stopSignal: "SIGINT",
  async create(a, ctx) {
    const { ClaudeCodeAgent } = await import("./adapter.js");
    return new ClaudeCodeAgent({
      ...processOptions(a, ctx),
      command: a.command,
      permissionMode: a.permissionMode,
      maxTurns: a.maxTurns,
      model: a.model,
      allowedTools: a.allowedTools,
      settingSources: a.settingSources,
      login: home(a, ctx.stateDir),
      template: a.cliHome,
      verifyLogin: async (candidate: string) => loginWorks(await probeWith(a, ctx, candidate)),
      appendSystemPrompt: readFileSync(bundledFile("prompts", "claude-code.md"), "utf8"),
      toolsCommand: toolsCommand(),
      clock: ctx.clock,
    });
  },
  preflight: (a, ctx) => {
    const dir = home(a, ctx.stateDir);
    return loginStatus({
      argv: [...a.command, "auth", "status"],
      passEnv: a.passEnv,
      set: a.env,
      home: { CLAUDE_CONFIG_DIR: dir },
      env: ctx.env,
      fix: loginFix(login(a, ctx.stateDir), chosenLogins(a, { "api-key": ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"] })),
      fresh: { layout: CLAUDE_HOME, login: dir, scratch: statePath(ctx.stateDir, "private") },
    });
  },
  login,
  promptFile: (a) => a.promptFile ?? bundledFile("prompts", "task.md"),
  home,
  cliHome: CLAUDE_HOME,
  egress: (a, env) => {
    const vars = agentEnv(env, a.passEnv, a.env);
    const keyEnvs = CLAUDE_KEYS.filter((k) => vars[k]);
    const upstream = vars.ANTHROPIC_BASE_URL ?? "https://api.anthropic.com";
    // The API this seat uses — its base URL when it has one (a gateway, a loopback server: api.anthropic.com is
    // then no host of its) — and, only for a seat with no key or token in its environment, its login's hosts.
    return {
      hosts: [urlEntry(upstream), ...(keyEnvs.length ? [] : LOGIN_HOSTS)],
      api: keyEnvs.length ? { name: "anthropic", upstream, keyEnvs } : undefined,
      housekeeping: HOUSEKEEPING,
    };
  },
  // A limit or 401 the run printed is checked with one request of the bridge's own, with the seat's login.
  check: (claim, a, ctx) => checked(async () => verdictOf(claim, await probeWith(a, ctx, home(a, ctx.stateDir)))),
  program: (a) => a.command[0],
  // In -p mode Claude Code always uses ANTHROPIC_API_KEY when it is set, over the subscription's login (env-vars docs).
  planOverride: async (a, ctx) => {
    const vars = agentEnv(ctx.env, a.passEnv, a.env);
    const plan = vars.CLAUDE_CODE_OAUTH_TOKEN
      ? "a subscription token (CLAUDE_CODE_OAUTH_TOKEN)"
      : (await loginHolds(join(home(a, ctx.stateDir), ".credentials.json"), "claudeAiOauth"))
        ? "the seat's subscription login"
        : null;
    return overridingKey(vars, ["ANTHROPIC_API_KEY"], plan);
  },
  version: { range: TESTED_VERSIONS.claudeCode, command: (a) => a.command },
});
