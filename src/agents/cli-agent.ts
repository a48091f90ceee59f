// Shared run loop for CLI agents that print JSON lines (Claude Code, Codex): spawn in the workspace
// with stdin closed, output to files (adoptable), lines → pure translator → events, and a grace
// period after the terminal line before the process group is killed (both CLIs can linger).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { BridgeError } from "../errors/index.js";
import { runProcess } from "../process/runner.js";
import { EventQueue } from "./events.js";
import type { AgentEvent, AgentRunInput } from "./port.js";

export interface CliAgentRun {
  argv: string[];
  env: Record<string, string>;
  input: Pick<AgentRunInput, "workspace" | "runDir" | "signal">;
  killGraceMs: number;
  outputCapBytes: number;
  /** Feeds one stdout line; returns the events and whether the run reached its terminal line. */
  translate: (line: string) => { events: AgentEvent[]; terminal: boolean };
  lingerMs?: number;
}

/**
 * What every tool-using CLI run needs first: its per-seat home (login + sessions; both CLIs refuse a
 * missing one) and the run's task tools.
 */
export function prepareSeatRun(input: AgentRunInput, seatDir: string, agent: string): NonNullable<AgentRunInput["tools"]> {
  mkdirSync(seatDir, { recursive: true, mode: 0o700 });
  if (!input.tools) throw new BridgeError("agent_needs_tools", `the ${agent} agent needs the task tools (run ${input.runId ?? "?"} of ${input.taskId})`);
  return input.tools;
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

export function runCliAgent(o: CliAgentRun): AsyncIterable<AgentEvent> {
  const { workspace, runDir } = o.input;
  const signal = o.input.signal;
  const q = new EventQueue();
  const linger = new AbortController();
  const onOuter = () => linger.abort(signal.reason);
  if (signal.aborted) onOuter();
  else signal.addEventListener("abort", onOuter, { once: true });
  let lingerTimer: NodeJS.Timeout | undefined;
  void (async () => {
    try {
      const res = await runProcess({
        argv: o.argv,
        cwd: workspace,
        env: o.env,
        signal: linger.signal,
        captureLimit: o.outputCapBytes,
        killGraceMs: o.killGraceMs,
        cleanup: false,
        outputFiles: { stdout: join(runDir, "stdout.log"), stderr: join(runDir, "stderr.log"), maxBytes: Math.max(o.outputCapBytes, 1024 * 1024) },
        onSpawn: (pid) => q.push({ type: "started", pid }),
        onStdoutLine: (line) => {
          const r = o.translate(line);
          for (const e of r.events) q.push(e);
          if (r.terminal && !lingerTimer) {
            lingerTimer = setTimeout(() => linger.abort(new Error("lingered after its terminal line")), o.lingerMs ?? 30_000);
            lingerTimer.unref();
          }
        },
      });
      const lingered = res.reason === "aborted" && !signal.aborted;
      q.push({
        type: "finished",
        // Killed only for lingering after a clean terminal line: that is an exit, not a failure.
        exitCode: lingered ? 0 : res.exitCode,
        signal: lingered ? null : res.signal,
        reason: lingered ? "exited" : res.reason,
        abortReason: res.abortReason,
        stdoutTail: res.stdout.slice(-4000),
        stderrTail: (res.spawnError ? `${res.spawnError.message}\n` : "") + res.stderr.slice(-4000),
        outputBytes: res.stdoutTotal,
      });
    } finally {
      if (lingerTimer) clearTimeout(lingerTimer);
      signal.removeEventListener("abort", onOuter);
      q.close();
    }
  })();
  return q.drain();
}
