// An agent process started by an earlier bridge process (restart recovery): we cannot read its
// pipes any more, only follow its output files, wait for it to exit and read the outcome file it was
// told to write. Runs on the one pump, so it always ends with `finished` and stops its tailers.
import { outputFiles } from "./cli-agent.js";
import { LineSplitter, TailBuffer } from "../process/lines.js";
import { sameProcessAlive } from "../process/liveness.js";
import { FileTailer } from "../process/tail.js";
import { killGroup, terminateGroup } from "../process/terminate.js";
import { sleepUnlessAborted } from "../time/clock.js";
import { outcomeFileEvents } from "./outcome.js";
import type { AgentAdapter, AgentEvent, AgentRunInput } from "./port.js";
import { pump } from "./pump.js";

export interface AdoptedProcess {
  pid: number;
  startTime: string | null;
  resultFile: string;
  /** Where the earlier bridge process had its output files (cli-agent.ts `outputFiles`), followed now. */
  outputDir: string;
  name: string;
  /** The agent talks to the task tools (they are served again for it). */
  usesTools?: boolean;
  /** The agent's polite stop: its kind's `stopSignal`. */
  politeSignal: NodeJS.Signals;
}

export class AdoptedAgent implements AgentAdapter {
  readonly name: string;
  readonly usesTools: boolean;
  constructor(
    private readonly p: AdoptedProcess,
    private readonly o: { pollMs?: number; killGraceMs?: number; stallMs?: number } = {},
  ) {
    this.name = p.name;
    this.usesTools = p.usesTools === true;
  }

  run(input: AgentRunInput): AsyncGenerator<AgentEvent> {
    const proc = this.p;
    const alive = () => sameProcessAlive(proc.pid, proc.startTime);
    return pump({ signal: input.signal, stallMs: this.o.stallMs }, async (p) => {
      p.emit({ type: "started", pid: proc.pid });
      p.emit({ type: "progress", note: "adopted after a bridge restart" });
      const out = new TailBuffer(4000);
      const err = new TailBuffer(4000);
      const lines = new LineSplitter((l) => {
        if (l.trim()) p.emit({ type: "progress", note: l.trim().slice(0, 500) });
      });
      const tailers = [
        new FileTailer(
          outputFiles(proc.outputDir).stdout,
          (t) => {
            out.push(t);
            lines.push(t);
          },
          8 * 1024 * 1024,
          "tail",
        ),
        new FileTailer(outputFiles(proc.outputDir).stderr, (t) => err.push(t), 8 * 1024 * 1024, "tail"),
      ];
      const onWrapUp = () => killGroup(proc.pid, proc.politeSignal);
      input.wrapUp.addEventListener("abort", onWrapUp, { once: true });
      try {
        for (const t of tailers) t.start(250);
        let aborted = false;
        while (alive()) {
          if (!(await sleepUnlessAborted(this.o.pollMs ?? 500, p.signal))) {
            aborted = true;
            await terminateGroup(proc.pid, { graceMs: this.o.killGraceMs ?? 5000, gone: () => !alive() });
            break;
          }
        }
        for (const t of tailers) t.stop();
        if (!aborted) for (const e of (await outcomeFileEvents(proc.resultFile)).events) p.emit(e);
        return {
          exitCode: null,
          signal: null,
          reason: aborted ? "aborted" : "exited",
          ...(aborted ? { abortReason: p.signal.reason } : {}),
          exitUnknown: true,
          stdoutTail: out.toString(),
          stderrTail: `${err.toString()}\n(exit code not observable: the agent was adopted after a bridge restart)`,
          outputBytes: out.total,
        };
      } finally {
        input.wrapUp.removeEventListener("abort", onWrapUp);
        for (const t of tailers) t.stop();
      }
    });
  }
}
