// The pre-flight of a CLI agent with a per-seat home: its own "am I logged in?" command
// (`claude auth status`, `codex login status`), run with the agent's environment and that home.
import { runProcess } from "../process/runner.js";
import { agentEnv } from "./env.js";
import type { PreflightResult } from "./kind.js";

export async function loginStatus(o: {
  argv: readonly string[];
  passEnv: readonly string[];
  set: Readonly<Record<string, string>>;
  home: Record<string, string>;
  env: NodeJS.ProcessEnv;
  fix: string;
}): Promise<PreflightResult> {
  const r = await runProcess({ argv: o.argv, env: { ...agentEnv(o.env, o.passEnv, o.set), ...o.home }, timeoutMs: 30_000 });
  const ok = r.reason === "exited" && r.exitCode === 0;
  const what = o.argv.slice(-2).join(" ");
  const text = (r.stdout + r.stderr).replace(/\s+/g, " ").trim().slice(0, 200);
  return { ok, detail: ok ? `${what}: logged in` : `${what}: ${text || (r.spawnError?.message ?? `exit ${r.exitCode}`)}`, fix: o.fix };
}
