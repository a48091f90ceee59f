// The pre-flight of a CLI agent with a per-seat home: its own "am I logged in?" command
// (`claude auth status`, `codex login status`), run with the agent's environment and that home.
import { readSmallFile } from "../state/read.js";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { runProcess } from "../process/runner.js";
import { type CliHomeLayout, freshHome } from "./cli-home.js";
import { agentEnv } from "./env.js";
import { shellQuote } from "../board/remote.js";
import type { LoginStep, PreflightResult } from "./kind.js";

/** A shell line: variables, then the words, each quoted for a POSIX shell. */
export function shellLine(vars: Readonly<Record<string, string>>, argv: readonly string[]): string {
  return [...Object.entries(vars).map(([k, v]) => `${k}=${shellQuote(v)}`), ...argv.map(shellQuote)].join(" ");
}

/**
 * The pre-flight's fix: every way to log the seat in, as commands that work when pasted — the way the seat's
 * config already names first (`chosen`: an API key's variable in agent.passEnv / agent.env; a subscription seat
 * names its token's variable as an option, which changes nothing).
 */
export function loginFix(steps: readonly LoginStep[], chosen: readonly string[] = []): string {
  const first = [...steps.filter((s) => chosen.includes(s.id)), ...steps.filter((s) => !chosen.includes(s.id))];
  return `log this seat in — ${first.map((s) => `${s.what}: ${s.command}${s.after ? ` (${s.after})` : ""}`).join("; or ")}`;
}

/** The login ways a seat's config names by their variables (`ways`: a step's id → the variables that mean it). */
export function chosenLogins(
  a: { passEnv: readonly string[]; env: Readonly<Record<string, string>> },
  ways: Readonly<Record<string, readonly string[]>>,
): string[] {
  const named = new Set([...a.passEnv, ...Object.keys(a.env)]);
  return Object.entries(ways)
    .filter(([, vars]) => vars.some((v) => named.has(v)))
    .map(([id]) => id);
}

/**
 * Runs the CLI's login check. With `fresh`, in a home made like a run's (the login's credentials only, in
 * a folder of the bridge's): the check sees what a run will see, and writes nothing into the seat's login.
 */
export async function loginStatus(o: {
  argv: readonly string[];
  passEnv: readonly string[];
  set: Readonly<Record<string, string>>;
  home: Record<string, string>;
  env: NodeJS.ProcessEnv;
  fix: string;
  fresh?: { layout: CliHomeLayout; login: string; scratch: string };
}): Promise<PreflightResult> {
  const f = o.fresh;
  if (!f) return check(o, o.home);
  await mkdir(f.scratch, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(join(f.scratch, "login-"));
  try {
    await freshHome({ layout: f.layout, login: f.login, home: dir });
    return await check(o, { ...o.home, [f.layout.env]: dir });
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function check(o: Parameters<typeof loginStatus>[0], home: Record<string, string>): Promise<PreflightResult> {
  const r = await runProcess({ argv: o.argv, env: { ...agentEnv(o.env, o.passEnv, o.set), ...home }, timeoutMs: 30_000 });
  const ok = r.reason === "exited" && r.exitCode === 0;
  const what = o.argv.slice(-2).join(" ");
  const text = (r.stdout + r.stderr).replace(/\s+/g, " ").trim().slice(0, 200);
  return { ok, detail: ok ? `${what}: logged in` : `${what}: ${text || (r.spawnError?.message ?? `exit ${r.exitCode}`)}`, fix: o.fix };
}

/** Whether a login file of the seat's home (JSON, read as untrusted, bounded) holds `key` as an object (a subscription's tokens). */
export async function loginHolds(file: string, key: string): Promise<boolean> {
  const r = await readSmallFile(file, 256 * 1024);
  if (!("text" in r) || r.text === null) return false;
  try {
    const j = JSON.parse(r.text) as Record<string, unknown>;
    return typeof j[key] === "object" && j[key] !== null;
  } catch {
    return false;
  }
}

/** The first of `keys` the seat's environment sets, with the plan it would be used over — or null. */
export function overridingKey(vars: Record<string, string>, keys: readonly string[], plan: string | null): { variable: string; plan: string } | null {
  const variable = keys.find((k) => vars[k]);
  return variable && plan ? { variable, plan } : null;
}
