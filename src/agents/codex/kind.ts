// The Codex agent kind: its config part, per-seat CODEX_HOME, `codex login status` (not checked with
// a custom model provider, whose auth it does not know).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { agentCommon, argv, list } from "../../config/fields.js";
import { bundledFile } from "../../config/paths.js";
import { processOptions, statefulTranslator, toolsCommand } from "../cli-agent.js";
import { agentEnv } from "../env.js";
import { PROBE_PROMPT, checked, loginWorks, probeSeat, verdictOf } from "../probe.js";
import { initialCodexState, translateCodexLine } from "./translate.js";
import { codexNativeImages } from "./native.js";
import { systemClock } from "../../time/clock.js";
import { chosenLogins, loginFix, loginHolds, loginStatus, overridingKey, shellLine } from "../cli-login.js";
import { defineKind } from "../kind.js";
import { TESTED_VERSIONS } from "../tested.js";
import { CODEX_HOME } from "./home.js";
import { customProviderOf } from "./provider.js";
import { statePath } from "../../state/layout.js";
import { urlEntry } from "../../egress/plan.js";

const schema = z
  .strictObject({
    kind: z.literal("codex"),
    command: argv.default(["codex"]),
    sandbox: z.enum(["read-only", "workspace-write", "danger-full-access"]).default("workspace-write"),
    model: z.string().optional(),
    /** The seat's login (the CODEX_HOME of `codex login`; not under /tmp); default <stateDir>/codex. No run sees it: each gets a fresh home. */
    home: z.string().optional(),
    /** A folder copied into each run's fresh CLI home (config.toml, AGENTS.md): the operator's, never a run's. */
    cliHome: z.string().optional(),
    /** Extra `-c key=value` overrides (e.g. a model provider). */
    config: list(z.string()).default([]),
    ...agentCommon,
  })
  .superRefine((a, ctx) => {
    // Without a model, Codex sends a custom provider no tools at all: the run would "return silently".
    if (customProvider(a) && !a.model)
      ctx.addIssue({
        code: "custom",
        path: ["model"],
        message: "is required with a custom model provider (agent.config sets model_provider=…): without a model Codex sends the provider no tools",
      });
  });

const home = (a: z.output<typeof schema>, stateDir: string) => a.home ?? statePath(stateDir, "codex");

/** A `-c model_provider=…` override: the seat runs Codex against a provider of its own (its auth is not Codex's login). */
const customProvider = (a: { config: string[] }) => a.config.some((kv) => kv.startsWith("model_provider="));

/** Where Codex takes a key from the environment (the proxy puts it in; the jail holds a placeholder). */
const CODEX_KEYS = ["OPENAI_API_KEY", "CODEX_API_KEY"] as const;

/**
 * Codex 0.17x: `codex login` (a browser, or `--device-auth`) or `codex login --with-api-key` (the key on
 * stdin) writes auth.json into CODEX_HOME — which must exist first (Codex refuses a CODEX_HOME that does not).
 */
function login(a: z.output<typeof schema>, stateDir: string) {
  const dir = home(a, stateDir);
  const mk = `${shellLine({}, ["mkdir", "-p", "-m", "700", dir])} && `;
  const codex = (...args: string[]) => shellLine({ CODEX_HOME: dir }, [...a.command, "login", ...args]);
  return [
    { id: "chatgpt", what: "a ChatGPT plan (a browser sign-in)", command: `${mk}${codex()}` },
    { id: "device", what: "a ChatGPT plan on a machine without a browser", command: `${mk}${codex("--device-auth")}` },
    { id: "api-key", what: "an OpenAI API key (read on stdin)", command: `${mk}printenv OPENAI_API_KEY | ${codex("--with-api-key")}` },
  ];
}

/** One trivial request of the bridge's own through `login` (a claim's check; a refreshed login's trial), outside the jail. */
function probeWith(a: z.output<typeof schema>, ctx: { stateDir: string; env: NodeJS.ProcessEnv }, login: string) {
  const translate = statefulTranslator(
    initialCodexState(),
    (s, line) => translateCodexLine(s, line, systemClock.now()),
    () => false,
  );
  return probeSeat({
    layout: CODEX_HOME,
    login,
    scratch: statePath(ctx.stateDir, "private"),
    make: (h, cwd) => ({
      // biome-ignore format: flag, value
      argv: [...a.command, "exec", "--json", "--skip-git-repo-check", "-s", "read-only", "-C", cwd,
        ...a.config.flatMap((c) => ["-c", c]), ...(a.model ? ["-m", a.model] : []), "--", PROBE_PROMPT],
      env: { ...agentEnv(ctx.env, a.passEnv, a.env), CODEX_HOME: h, HOME: cwd, TZ: "UTC" },
      translate: (line) => translate(line).events,
    }),
  });
}

export const codexKind = defineKind({
  kind: "codex",
  schema,
  stopSignal: "SIGINT",
  async create(a, ctx) {
    const { CodexAgent } = await import("./adapter.js");
    return new CodexAgent({
      ...processOptions(a, ctx),
      command: a.command,
      sandbox: a.sandbox,
      model: a.model,
      login: home(a, ctx.stateDir),
      template: a.cliHome,
      verifyLogin: async (candidate: string) => loginWorks(await probeWith(a, ctx, candidate)),
      extraConfig: a.config,
      toolsCommand: toolsCommand(),
      protocol: readFileSync(bundledFile("prompts", "codex.md"), "utf8"),
      clock: ctx.clock,
    });
  },
  preflight: async (a, ctx) => {
    if (customProvider(a)) return { ok: true, detail: "codex with a custom model provider: login not checked", fix: "" };
    const dir = home(a, ctx.stateDir);
    return loginStatus({
      argv: [...a.command, "login", "status"],
      passEnv: a.passEnv,
      set: a.env,
      home: { CODEX_HOME: dir },
      env: ctx.env,
      fix: loginFix(login(a, ctx.stateDir), chosenLogins(a, { "api-key": CODEX_KEYS })),
      fresh: { layout: CODEX_HOME, login: dir, scratch: statePath(ctx.stateDir, "private") },
    });
  },
  login,
  promptFile: (a) => a.promptFile ?? bundledFile("prompts", "task.md"),
  home,
  cliHome: CODEX_HOME,
  egress: (a, env) => {
    const vars = agentEnv(env, a.passEnv, a.env);
    const provider = customProviderOf(a.config);
    // The provider's own key variable too (env_key): the jail holds a placeholder for it like OPENAI_API_KEY.
    const keyEnvs = [...new Set([...CODEX_KEYS, ...(provider?.envKey ? [provider.envKey] : [])])].filter((k) => vars[k]);
    const upstream = provider?.baseUrl ?? vars.OPENAI_BASE_URL ?? "https://api.openai.com/v1";
    // The API this seat uses (its provider's or OPENAI_BASE_URL when set: api.openai.com is then no host of
    // its); ChatGPT's Codex backend and its login only where the login may be a ChatGPT one — no provider of
    // its own and no key in the environment (the login in CODEX_HOME may be either). A seat with a key (or a
    // provider) gets its API forwarded. Its update check and metrics are housekeeping, refused.
    const login = provider || keyEnvs.length ? [] : ["chatgpt.com", "auth.openai.com"];
    return {
      hosts: [urlEntry(upstream), ...login],
      api: keyEnvs.length || provider?.baseUrl ? { name: "openai", upstream, keyEnvs } : undefined,
      housekeeping: ["github.com", "api.github.com", "ab.chatgpt.com"],
    };
  },
  // A limit or 401 the run printed is checked with one request of the bridge's own, with the seat's login.
  check: (claim, a, ctx) => checked(async () => verdictOf(claim, await probeWith(a, ctx, home(a, ctx.stateDir)))),
  program: (a) => a.command[0],
  // A ChatGPT plan's login (auth.json's tokens) beside a key Codex takes from the environment: the key is billed.
  planOverride: async (a, ctx) => {
    if (customProvider(a)) return null;
    const plan = (await loginHolds(join(home(a, ctx.stateDir), "auth.json"), "tokens")) ? "the seat's ChatGPT login" : null;
    return overridingKey(agentEnv(ctx.env, a.passEnv, a.env), CODEX_KEYS, plan);
  },
  version: { range: TESTED_VERSIONS.codex, command: (a) => a.command },
  images: (a, env) => codexNativeImages(a.command[0] ?? "", agentEnv(env, a.passEnv, a.env).PATH, process.cwd(), process.arch, null),
});
