// Shared run loop for CLI agents that print JSON lines (Claude Code, Codex) and for the command agent:
// spawn in the workspace with stdin closed (or the prompt), output to files (adoptable), lines → a
// pure translator → events, SIGINT on wrap-up, the kill ladder on a hard stop, the group reaped after
// the exit, and the pump's watchdogs (silence; a final line followed by no exit).
import { statSync } from "node:fs";
import { join } from "node:path";
import type { AgentConfig } from "../config/fields.js";
import { bundledFile, packageRoot } from "../config/paths.js";
import { BridgeError } from "../errors/index.js";
import { type StdinChannel, runProcess } from "../process/runner.js";
import { type JailNeeds, type JailedCommand, launchOf } from "../jail/jail.js";
import { nodeMounts } from "../jail/program.js";
import type { AgentEvent, AgentRunInput } from "./port.js";
import { agentEnv } from "./env.js";
import { type AgentEnd, endOf, pump } from "./pump.js";
import type { KindContext } from "./kind.js";
import { type CliHomeLayout, RUN_CLI_HOME, SAVED_TRANSCRIPT, closeHome, freshHome } from "./cli-home.js";

/** What every process-based adapter shares (from config `agent.*`). */
export interface ProcessAgentOptions {
  /** The agent's environment (the one policy: agents/env.ts), before per-run additions. */
  baseEnv: Readonly<Record<string, string>>;
  killGraceMs: number;
  outputCapBytes: number;
  stallMs: number;
  afterResultMs: number;
  /** Cap of the prompt (stdin, never argv), with a visible marker past it. */
  promptMaxBytes: number;
  /** The polite stop (the kind's `stopSignal`: SIGINT for the CLIs, which persist their session on it; SIGTERM for a command). */
  politeSignal: NodeJS.Signals;
}

/** The process options every process-based kind takes from its config's common keys. */
export function processOptions(a: AgentConfig, ctx: Pick<KindContext, "env" | "stopSignal">): ProcessAgentOptions {
  const env = ctx.env;
  return {
    politeSignal: ctx.stopSignal,
    baseEnv: agentEnv(env, a.passEnv, a.env),
    killGraceMs: a.killGraceSeconds * 1000,
    outputCapBytes: a.outputCapBytes,
    stallMs: a.stallSeconds * 1000,
    afterResultMs: a.afterResultSeconds * 1000,
    promptMaxBytes: a.promptMaxBytes,
  };
}

/** argv that starts `hermes-bridge task-tools` from the installed package. */
export function toolsCommand(): string[] {
  return [process.execPath, bundledFile("dist", "cli", "main.js"), "task-tools"];
}

/** Files named by absolute path among a configured command's arguments (a script its interpreter runs): visible, read-only. */
export function commandFiles(command: readonly string[]): string[] {
  return command.slice(1).filter((a) => {
    try {
      return a.startsWith("/") && statSync(a).isFile(); // sync-io: the operator's config, not agent-writable
    } catch {
      return false;
    }
  });
}

/**
 * What a tool-using CLI needs in the jail: Node and the bridge's task-tools server (read-only); its home is the
 * run's own. Its stream is its own: what it reports of itself there (usage, a limit, a login) is trusted more than
 * the processes it starts for the model, so no other process of the jail may hold or write it (JailNeeds.ownStream).
 * A command agent's processes are all the agent: its stream is its own word however many children share it.
 */
export function seatJailNeeds(command: readonly string[], readOnlyOver: readonly string[] = []): JailNeeds {
  return { readOnly: [...commandFiles(command), ...nodeMounts(packageRoot())], readOnlyOver, ownStream: true };
}

/** An agent's output files (followed by the runner; after a restart by the adopted agent). */
export const outputFiles = (dir: string) => ({ stdout: join(dir, "agent-stdout.log"), stderr: join(dir, "agent-stderr.log") });

export interface CliAgentRun {
  argv: string[];
  env: Record<string, string>;
  input: Pick<AgentRunInput, "workspace" | "outputDir" | "signal" | "wrapUp" | "jail">;
  /** What this kind's process needs in the jail besides the run's own paths (its home, the task-tools server). */
  jailNeeds?: JailNeeds;
  o: ProcessAgentOptions;
  /** Text on stdin (then closed), or a channel held open by the adapter; without it stdin is /dev/null. */
  stdin?: string | StdinChannel;
  /** Feeds one stdout line; returns the events and whether the run reached its terminal line. */
  translate: (line: string) => { events: AgentEvent[]; terminal: boolean };
  /** Before the start (the run's fresh CLI home); a throw ends the run as an environment failure. */
  before?: () => Promise<void>;
  /** After the exit: more events (e.g. from an outcome file). */
  after?: (end: AgentEnd) => Promise<AgentEvent[]>;
}

/** The run's task tools, which every tool-using CLI run needs. */
export function runTools(input: AgentRunInput, agent: string): NonNullable<AgentRunInput["tools"]> {
  if (!input.tools) throw new BridgeError("agent_needs_tools", `the ${agent} agent needs the task tools (run ${input.runId ?? "?"} of ${input.taskId})`);
  return input.tools;
}

/** The run's own CLI home (agents/cli-home.ts): fresh before the start; after the exit the refreshed login and the session's transcript. */
export function runHome(
  input: Pick<AgentRunInput, "runDir" | "sessionDir" | "resume">,
  o: { layout: CliHomeLayout; login: string; template?: string | undefined; verifyLogin?: ((login: string) => Promise<boolean>) | undefined },
): { home: string; before: () => Promise<void>; after: (sessions: readonly (string | null | undefined)[]) => Promise<AgentEvent[]> } {
  const home = join(input.runDir, RUN_CLI_HOME);
  const save = join(input.sessionDir, SAVED_TRANSCRIPT);
  return {
    home,
    before: () => freshHome({ layout: o.layout, login: o.login, template: o.template, home, restore: input.resume ? save : undefined }),
    after: async (sessions) => {
      const ids = [...new Set(sessions.filter((s): s is string => typeof s === "string"))];
      const r = await closeHome({ layout: o.layout, login: o.login, home, sessions: ids, save, verify: o.verifyLogin });
      return r.problem ? [{ type: "progress", note: `the CLI's home after the run: ${r.problem}` }] : [];
    },
  };
}

/** Wraps a pure (state, line) → (state, events) translator into the stateful callback runCliAgent takes. */
export function statefulTranslator<S>(
  initial: S,
  step: (state: S, line: string) => { state: S; events: AgentEvent[] },
  terminal: (state: S) => boolean,
): CliAgentRun["translate"] {
  let state = initial;
  return (line) => {
    const r = step(state, line);
    state = r.state;
    return { events: r.events, terminal: terminal(state) };
  };
}

/**
 * A session handle that is not the CLI's own shape never reaches its argv (`--resume <id>`, `resume <id>`:
 * an id like `--dangerously-bypass-approvals-and-sandbox` would be read as a flag): the resume is refused
 * before anything starts, and the run starts fresh (run/work/agent-run.ts).
 */
export function refusedResume(input: Pick<AgentRunInput, "signal">, id: string, agent: string): AsyncGenerator<AgentEvent> {
  const message = `${JSON.stringify(id.slice(0, 80))} is not a ${agent} session id: not resumed`;
  return pump({ signal: input.signal }, async (p) => {
    p.emit({ type: "resume_failed", message });
    return { exitCode: null, signal: null, reason: "spawn_failed", stdoutTail: "", stderrTail: message, outputBytes: 0 };
  });
}

export function runCliAgent(r: CliAgentRun): AsyncGenerator<AgentEvent> {
  const { workspace, outputDir } = r.input;
  const jail = r.input.jail;
  return pump({ signal: r.input.signal, stallMs: r.o.stallMs, afterResultMs: r.o.afterResultMs }, async (p) => {
    await r.before?.();
    // A path the jail refuses (a program under a forbidden root) ends here as the run's environment failure.
    // A CLI's stdout is its stream: on a descriptor only the program holds, its images execute-only (jail/images.ts) — where the kind asks (seatJailNeeds).
    const started: JailedCommand = jail ? await jail.command(r.argv, r.env, r.jailNeeds ?? {}) : { argv: r.argv, env: r.env };
    const res = await runProcess({
      ...launchOf(started),
      cwd: workspace,
      jailed: jail?.mode === "bwrap",
      input: r.stdin,
      signal: p.signal,
      polite: r.input.wrapUp,
      politeSignal: r.o.politeSignal,
      captureLimit: r.o.outputCapBytes,
      killGraceMs: r.o.killGraceMs,
      cleanup: false,
      reapGroup: true,
      outputFiles: { ...outputFiles(outputDir), maxBytes: Math.max(r.o.outputCapBytes, 1024 * 1024) },
      onSpawn: (pid) => p.emit({ type: "started", pid }),
      onStdoutLine: (line) => {
        const t = r.translate(line);
        for (const e of t.events) p.emit(e);
        if (t.terminal) p.terminal();
      },
    });
    const end = endOf(res);
    if (r.after && res.reason !== "spawn_failed") for (const e of await r.after(end)) p.emit(e);
    return end;
  });
}
