// An agent process started by an earlier bridge process (restart recovery): we cannot read its
// output any more, only wait for it to exit and read the outcome file it was told to write.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { LineSplitter, TailBuffer } from "../process/lines.js";
import { FileTailer } from "../process/tail.js";
import { killGroup } from "../process/runner.js";
import { sameProcessAlive } from "../process/liveness.js";
import { sleepUnlessAborted } from "../time/clock.js";
import { parseOutcomeFile } from "./command/outcome.js";
import { EventQueue } from "./events.js";
import type { AgentAdapter, AgentEvent, AgentRunInput } from "./port.js";

export interface AdoptedProcess {
  pid: number;
  startTime: string | null;
  resultFile: string;
  /** The run directory of the earlier bridge process (stdout.log / stderr.log are followed). */
  runDir: string;
  name: string;
  /** The agent talks to the task tools (they are served again for it). */
  usesTools?: boolean;
}

export class AdoptedAgent implements AgentAdapter {
  readonly name: string;
  readonly usesTools: boolean;
  constructor(
    private readonly p: AdoptedProcess,
    private readonly pollMs = 500,
    private readonly killGraceMs = 5000,
  ) {
    this.name = p.name;
    this.usesTools = p.usesTools === true;
  }

  run(input: AgentRunInput): AsyncIterable<AgentEvent> {
    const q = new EventQueue();
    void (async () => {
      q.push({ type: "started", pid: this.p.pid });
      q.push({ type: "progress", note: "adopted after a bridge restart" });
      const out = new TailBuffer(4000);
      const err = new TailBuffer(4000);
      const lines = new LineSplitter((l) => {
        if (l.trim()) q.push({ type: "progress", note: l.trim().slice(0, 500) });
      });
      const tailers = [
        new FileTailer(join(this.p.runDir, "stdout.log"), (t) => {
          out.push(t);
          lines.push(t);
        }, 8 * 1024 * 1024, "tail"),
        new FileTailer(join(this.p.runDir, "stderr.log"), (t) => err.push(t), 8 * 1024 * 1024, "tail"),
      ];
      for (const t of tailers) t.start(250);
      let aborted = false;
      while (sameProcessAlive(this.p.pid, this.p.startTime)) {
        if (!(await sleepUnlessAborted(this.pollMs, input.signal))) {
          aborted = true;
          killGroup(this.p.pid, "SIGTERM");
          const gone = await waitGone(this.p, this.killGraceMs);
          if (!gone) killGroup(this.p.pid, "SIGKILL");
          break;
        }
      }
      for (const t of tailers) t.stop();
      if (!aborted) {
        const parsed = parseOutcomeFile(await readFile(this.p.resultFile, "utf8").catch(() => null));
        if (parsed.kind === "limit") q.push({ type: "limit", kind: parsed.limitKind, resetsAt: parsed.resetsAt, message: parsed.message });
          else if (parsed.kind === "auth_failed") q.push({ type: "auth_failed", message: parsed.message });
        else if (parsed.kind !== "none") q.push({ type: "outcome", request: parsed });
      }
      q.push({
        type: "finished",
        exitCode: null,
        signal: null,
        reason: aborted ? "aborted" : "exited",
        exitUnknown: true,
        stdoutTail: out.toString(),
        stderrTail: `${err.toString()}\n(exit code not observable: the agent was adopted after a bridge restart)`,
        outputBytes: out.total,
      });
      q.close();
    })();
    return q.drain();
  }
}

async function waitGone(p: AdoptedProcess, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    if (!sameProcessAlive(p.pid, p.startTime)) return true;
    await sleepUnlessAborted(100);
  }
  return !sameProcessAlive(p.pid, p.startTime);
}
