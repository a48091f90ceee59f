// The Codex agent kind: its config part, per-seat CODEX_HOME, `codex login status` (not checked with
// a custom model provider, whose auth it does not know).
import { readFileSync } from "node:fs";
import { z } from "zod";
import { agentCommon, argv, list } from "../../config/fields.js";
import { bundledFile } from "../../config/paths.js";
import { processOptions, toolsCommand } from "../cli-agent.js";
import { loginFix, loginStatus, shellLine } from "../cli-login.js";
import { defineKind } from "../kind.js";
import { statePath } from "../../state/layout.js";

const schema = z
  .strictObject({
    kind: z.literal("codex"),
    command: argv.default(["codex"]),
    sandbox: z.enum(["read-only", "workspace-write", "danger-full-access"]).default("workspace-write"),
    model: z.string().optional(),
    /** Per-seat CODEX_HOME (not under /tmp); default <stateDir>/codex. */
    home: z.string().optional(),
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
      home: home(a, ctx.config.stateDir),
      extraConfig: a.config,
      toolsCommand: toolsCommand(),
      protocol: readFileSync(bundledFile("prompts", "codex.md"), "utf8"),
      clock: ctx.clock,
    });
  },
  preflight: async (a, ctx) => {
    if (customProvider(a)) return { ok: true, detail: "codex with a custom model provider: login not checked", fix: "" };
    const dir = home(a, ctx.config.stateDir);
    return loginStatus({
      argv: [...a.command, "login", "status"],
      passEnv: a.passEnv,
      set: a.env,
      home: { CODEX_HOME: dir },
      env: ctx.env,
      fix: loginFix(login(a, ctx.config.stateDir)),
    });
  },
  login,
  promptFile: (a) => a.promptFile ?? bundledFile("prompts", "task.md"),
  home,
  program: (a) => a.command[0],
});
