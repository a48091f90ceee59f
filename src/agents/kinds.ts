// The list of agent kinds — the one place a kind is named. A new kind is one folder
// (agents/<kind>/: its adapter and its kind.ts) and one entry here; config, factory, pre-flight, doctor
// and restart recovery iterate over the list (or a list given in its place).
import type { Config } from "../config/schema.js";
import { type LoadOptions, loadConfigWith } from "../config/load.js";
import { parseHostRule } from "../egress/allow.js";
import { ConfigError } from "../errors/index.js";
import type { Redactor } from "../result/redact.js";
import type { Clock } from "../time/clock.js";
import { claudeCodeKind } from "./claude-code/kind.js";
import { codexKind } from "./codex/kind.js";
import { commandKind } from "./command/kind.js";
import type { AgentKind, PreflightResult } from "./kind.js";
import { localLlmKind } from "./local-llm/kind.js";
import type { AgentAdapter } from "./port.js";
import { agentEnv } from "./env.js";
import { programImages } from "../jail/images.js";
import { checkVersion } from "./tested.js";

export const AGENT_KINDS: readonly AgentKind[] = [commandKind, claudeCodeKind, codexKind, localLlmKind];

export type { AgentKind, LoginStep, PreflightResult } from "./kind.js";

/** The seat's config, its agent part checked by its kind's own schema. */
export function loadConfig(o: LoadOptions, kinds: readonly AgentKind[] = AGENT_KINDS): Config {
  const c = loadConfigWith(kinds, o);
  // The jail's host entries are checked with the config (egress/allow.ts is their one parser): a bad one is no valid config.
  const issues: { path: string; message: string }[] = [];
  for (const key of ["allowHosts", "denyHosts"] as const)
    c.agent.isolation[key].forEach((entry, i) => {
      try {
        parseHostRule(entry, `agent.isolation.${key}.${i}`);
      } catch (err) {
        issues.push({ path: `agent.isolation.${key}.${i}`, message: (err as Error).message });
      }
    });
  if (issues.length) throw new ConfigError(issues);
  return c;
}

export function kindNamed(name: string, kinds: readonly AgentKind[] = AGENT_KINDS): AgentKind | undefined {
  return kinds.find((k) => k.kind === name);
}

/** The kind of a loaded config (it was checked against the list: a miss is a bug of the caller). */
export function kindOf(c: Pick<Config, "agent">, kinds: readonly AgentKind[] = AGENT_KINDS): AgentKind {
  const k = kindNamed(c.agent.kind, kinds);
  if (!k) throw new ConfigError([{ path: "agent.kind", message: `unknown agent kind '${c.agent.kind}' (known: ${kinds.map((x) => x.kind).join(", ")})` }]);
  return k;
}

export function createAgent(c: Config, env: NodeJS.ProcessEnv, clock: Clock, redactor: Redactor, kinds?: readonly AgentKind[]): Promise<AgentAdapter> {
  const k = kindOf(c, kinds);
  return k.create(c.agent, { stateDir: c.stateDir, env, clock, redactor, stopSignal: k.stopSignal });
}

/**
 * Before a seat claims anything: the kind's own check (logged in, reachable) and, for a kind with tested versions,
 * the installed CLI's version — older than the oldest tested is refused with the install line; newer runs (the
 * caller warns, naming the tested range).
 */
export async function preflight(c: Config, env: NodeJS.ProcessEnv, kinds?: readonly AgentKind[]): Promise<PreflightResult> {
  const k = kindOf(c, kinds);
  const version = k.version ? await checkVersion(k.version.command(c.agent), agentEnv(env, c.agent.passEnv, c.agent.env), k.version.range) : undefined;
  if (version?.state === "older") return { ok: false, detail: version.detail, fix: version.fix, version };
  const p = await k.preflight(c.agent, { stateDir: c.stateDir, env });
  return version ? { ...p, version } : p;
}

/** The images the seat's CLI starts from (its program, its `#!` interpreter, the kind's own): what its jail shows execute-only. */
export function seatImages(c: Config, env: NodeJS.ProcessEnv, kinds?: readonly AgentKind[]): string[] {
  const k = kindOf(c, kinds);
  const path = agentEnv(env, c.agent.passEnv, c.agent.env).PATH;
  const program = k.program?.(c.agent);
  const own = program ? programImages(program, path, process.cwd(), null).map((i) => i.image) : [];
  return [...new Set([...own, ...(k.images?.(c.agent, env) ?? [])])];
}

export function promptFileFor(c: Config, kinds?: readonly AgentKind[]): string {
  return kindOf(c, kinds).promptFile(c.agent);
}
