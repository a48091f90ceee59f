// The local-LLM agent kind: the bridge's own loop against an OpenAI-compatible server; its pre-flight
// asks the server's /models for the configured model.
import { z } from "zod";
import { agentCommon, envName, list, seconds } from "../../config/fields.js";
import { bundledFile } from "../../config/paths.js";
import { agentEnv } from "../env.js";
import { defineKind } from "../kind.js";

const schema = z.strictObject({
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

/** GET <baseUrl>/models from the bridge: does the server answer, and does it serve the model? */
async function modelServer(a: z.output<typeof schema>, ctx: { env: NodeJS.ProcessEnv }) {
  try {
    const res = await (await import("undici")).request(`${a.baseUrl.replace(/\/+$/, "")}/models`, {
      headersTimeout: 5000,
      bodyTimeout: 5000,
      headers: a.apiKeyEnv && ctx.env[a.apiKeyEnv] ? { authorization: `Bearer ${ctx.env[a.apiKeyEnv]}` } : {},
    });
    const body = await res.body.text();
    const ok = res.statusCode === 200 && body.includes(a.model);
    return {
      ok,
      reached: true,
      detail: ok ? `${a.baseUrl} serves ${a.model}` : `${a.baseUrl}/models answered ${res.statusCode} without ${a.model}`,
      fix: "start the model server and pull the model (Ollama: ollama pull <model>)",
    };
  } catch (err) {
    return { ok: false, reached: false, detail: `${a.baseUrl} unreachable: ${(err as Error).message}`, fix: "start the model server or fix agent.baseUrl" };
  }
}

export const localLlmKind = defineKind({
  kind: "local-llm",
  schema,
  stopSignal: "SIGINT",
  async create(a, ctx) {
    const { LocalLlmAgent } = await import("./adapter.js");
    return new LocalLlmAgent({
      baseUrl: a.baseUrl,
      model: a.model,
      apiKey: a.apiKeyEnv ? ctx.env[a.apiKeyEnv] : undefined,
      maxSteps: a.maxSteps,
      maxTokens: a.maxTokens,
      idleTimeoutMs: a.idleTimeoutSeconds * 1000,
      temperature: a.temperature,
      // The loop's own system prompt; agent.promptFile replaces it.
      systemPromptFile: a.promptFile ?? bundledFile("prompts", "local-llm.md"),
      allowCommands: a.allowCommands,
      commandTimeoutMs: a.commandTimeoutSeconds * 1000,
      outputCap: a.outputCapBytes,
      env: agentEnv(ctx.env, a.passEnv, a.env),
      stallMs: a.stallSeconds * 1000,
      historyMaxChars: a.historyMaxChars,
      redact: (m) => ctx.redactor.redactDeep(m),
    });
  },
  preflight: (a, ctx) => modelServer(a, ctx),
  // Only an unreachable server is checked (the loop's limits and logins are the bridge's own answers): any answer refutes it.
  check: async (claim, a, ctx) => {
    if (claim !== "unreachable") return { verdict: "unknown", detail: "the local loop's limits and logins are the bridge's own answers" };
    const p = await modelServer(a, ctx);
    return p.reached ? { verdict: "refuted", detail: p.detail } : { verdict: "confirmed", detail: p.detail };
  },
  // The task prompt of the first user message (the system prompt is agent.promptFile or prompts/local-llm.md).
  promptFile: () => bundledFile("prompts", "task.md"),
});
