// The generic command agent: runs the configured argv in the workspace (own process group, stdin =
// the rendered prompt, output drained and capped), then reads the outcome file it wrote.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runProcess } from "../../process/runner.js";
import { EventQueue } from "../events.js";
import { type AgentAdapter, type AgentEvent, type AgentRunInput, agentEnv } from "../port.js";
import { parseOutcomeFile } from "./outcome.js";

export interface CommandAgentOptions {
  command: readonly string[];
  env: Readonly<Record<string, string>>;
  passEnv: readonly string[];
  outputCapBytes: number;
  killGraceMs: number;
  parentEnv: NodeJS.ProcessEnv;
}

export class CommandAgent implements AgentAdapter {
  readonly name = "command";
  constructor(private readonly o: CommandAgentOptions) {}

  run(input: AgentRunInput): AsyncIterable<AgentEvent> {
    const q = new EventQueue();
    const env = {
      ...agentEnv(this.o.parentEnv, this.o.passEnv, this.o.env),
      HERMES_BRIDGE_TASK_ID: input.taskId,
      HERMES_BRIDGE_RUN_ID: input.runId === null ? "" : String(input.runId),
      HERMES_BRIDGE_WORKSPACE: input.workspace,
      HERMES_BRIDGE_CONTEXT: input.contextFile,
      HERMES_BRIDGE_RESULT: input.resultFile,
    };
    void (async () => {
      try {
        const res = await runProcess({
          argv: this.o.command,
          cwd: input.workspace,
          env,
          input: input.prompt,
          signal: input.signal,
          captureLimit: this.o.outputCapBytes,
          killGraceMs: this.o.killGraceMs,
          cleanup: false,
          outputFiles: { stdout: join(input.runDir, "stdout.log"), stderr: join(input.runDir, "stderr.log"), maxBytes: Math.max(this.o.outputCapBytes, 1024 * 1024) },
          onSpawn: (pid) => q.push({ type: "started", pid }),
          onStdoutLine: (line) => {
            const note = line.trim();
            if (note) q.push({ type: "progress", note: note.slice(0, 500) });
          },
        });
        if (res.reason !== "spawn_failed") {
          const text = await readFile(input.resultFile, "utf8").catch(() => null);
          const parsed = parseOutcomeFile(text);
          if (parsed.kind === "limit") q.push({ type: "limit", kind: parsed.limitKind, resetsAt: parsed.resetsAt, message: parsed.message });
          else if (parsed.kind === "auth_failed") q.push({ type: "auth_failed", message: parsed.message });
          else if (parsed.kind !== "none") q.push({ type: "outcome", request: parsed });
        }
        q.push({
          type: "finished",
          exitCode: res.exitCode,
          signal: res.signal,
          reason: res.reason,
          abortReason: res.abortReason,
          stdoutTail: res.stdout.slice(-4000),
          stderrTail: (res.spawnError ? `${res.spawnError.message}\n` : "") + res.stderr.slice(-4000),
          outputBytes: res.stdoutTotal,
        });
      } catch (err) {
        q.push({ type: "finished", exitCode: null, signal: null, reason: "spawn_failed", stdoutTail: "", stderrTail: String(err), outputBytes: 0 });
      } finally {
        q.close();
      }
    })();
    return q.drain();
  }
}
