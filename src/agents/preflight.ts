// Pre-flight: is the seat's agent logged in / reachable before anything is claimed? (`claude auth
// status`, `codex login status` — skipped with a custom model provider, whose auth it does not
// know —, a local server's /models.) A failure pauses the seat: no task is claimed only to fail.
import { join } from "node:path";
import type { Config } from "../config/schema.js";
import { runProcess } from "../process/runner.js";
import { agentEnv } from "./env.js";

export interface PreflightResult {
  ok: boolean;
  detail: string;
  fix: string;
}

export async function preflight(c: Config, env: NodeJS.ProcessEnv): Promise<PreflightResult> {
  const a = c.agent;
  if (a.kind === "command") return { ok: true, detail: "command agent: nothing to check", fix: "" };
  if (a.kind === "local-llm") {
    try {
      const res = await (await import("undici")).request(`${a.baseUrl.replace(/\/+$/, "")}/models`, {
        headersTimeout: 5000,
        bodyTimeout: 5000,
        headers: a.apiKeyEnv && env[a.apiKeyEnv] ? { authorization: `Bearer ${env[a.apiKeyEnv]}` } : {},
      });
      const body = await res.body.text();
      const ok = res.statusCode === 200 && body.includes(a.model);
      return {
        ok,
        detail: ok ? `${a.baseUrl} serves ${a.model}` : `${a.baseUrl}/models answered ${res.statusCode} without ${a.model}`,
        fix: "start the model server and pull the model (Ollama: ollama pull <model>)",
      };
    } catch (err) {
      return { ok: false, detail: `${a.baseUrl} unreachable: ${(err as Error).message}`, fix: "start the model server or fix agent.baseUrl" };
    }
  }
  if (a.kind === "codex" && a.config.some((kv) => kv.startsWith("model_provider=")))
    return { ok: true, detail: "codex with a custom model provider: login not checked", fix: "" };
  const claude = a.kind === "claude-code";
  const dir = claude ? (a.configDir ?? join(c.stateDir, "claude")) : (a.home ?? join(c.stateDir, "codex"));
  const home: Record<string, string> = claude ? { CLAUDE_CONFIG_DIR: dir } : { CODEX_HOME: dir };
  const argv = claude ? [...a.command, "auth", "status"] : [...a.command, "login", "status"];
  const r = await runProcess({ argv, env: { ...agentEnv(env, a.passEnv, a.env), ...home }, timeoutMs: 30_000 });
  const ok = r.reason === "exited" && r.exitCode === 0;
  const text = (r.stdout + r.stderr).replace(/\s+/g, " ").trim().slice(0, 200);
  return {
    ok,
    detail: ok ? `${argv.slice(-2).join(" ")}: logged in` : `${argv.slice(-2).join(" ")}: ${text || (r.spawnError?.message ?? `exit ${r.exitCode}`)}`,
    fix: claude
      ? `log this seat in: CLAUDE_CONFIG_DIR=${dir} claude auth login (or set CLAUDE_CODE_OAUTH_TOKEN from \`claude setup-token\`)`
      : `log this seat in: CODEX_HOME=${dir} codex login`,
  };
}
