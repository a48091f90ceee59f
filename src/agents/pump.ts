// The one event pump every adapter runs on. A producer pushes events (from process output, a loop, a
// file) and returns how the run ended; the pump yields them as an async generator, always ends with
// exactly one `finished` event built here, turns a throw into `failed` + `finished`, and stops the
// producer in `finally` when the consumer leaves early (the Codex SDK's thread.ts is the model).
// Shared watchdogs: silence (no event for `stallMs` → stop, reason `stalled`) and after-result idle
// (a final result line, then `afterResultMs` without an exit → stop and use the result).
import { describeError } from "../errors/index.js";
import { AsyncQueue } from "../process/queue.js";
import type { RunResult } from "../process/runner.js";
import type { AgentEvent, FinishedEvent, TerminationReason } from "./port.js";

/** How the producer's process (or loop) ended. */
export interface AgentEnd {
  exitCode: number | null;
  signal: string | null;
  reason: Exclude<TerminationReason, "stalled">;
  abortReason?: unknown;
  exitUnknown?: boolean;
  stdoutTail: string;
  stderrTail: string;
  outputBytes: number;
}

export interface PumpHandle {
  /** Aborted by the outer hard stop, a watchdog, or the consumer leaving: the producer must end. */
  readonly signal: AbortSignal;
  emit(e: AgentEvent): void;
  /** The agent printed its final result: from now on it only has `afterResultMs` to exit. */
  terminal(): void;
}

export interface PumpOptions {
  signal: AbortSignal;
  /** Silence watchdog; 0 or undefined = off. */
  stallMs?: number | undefined;
  /** After-result idle kill; 0 or undefined = off. */
  afterResultMs?: number | undefined;
}

export class AgentStalled extends Error {
  constructor(readonly ms: number) {
    super(`stalled: no agent event for ${Math.round(ms / 1000)} s`);
    this.name = "AgentStalled";
  }
}

class AgentLingered extends Error {
  constructor(ms: number) {
    super(`lingered ${Math.round(ms / 1000)} s after its final result`);
    this.name = "AgentLingered";
  }
}

const TAIL = 4000;

/** The end of a process run, as the pump wants it. */
export function endOf(res: RunResult): AgentEnd {
  return {
    exitCode: res.exitCode,
    signal: res.signal,
    reason: res.reason,
    ...(res.reason === "aborted" ? { abortReason: res.abortReason } : {}),
    stdoutTail: res.stdout.slice(-TAIL),
    stderrTail: (res.spawnError ? `${res.spawnError.message}\n` : "") + res.stderr.slice(-TAIL),
    outputBytes: res.stdoutTotal,
  };
}

/** The one builder of the `finished` event. */
export function finishedEvent(end: AgentEnd, watch: { stalled: boolean; lingered: boolean }): FinishedEvent {
  // Killed only for lingering after its final result line: that is an exit, not a failure.
  if (watch.lingered && end.reason === "aborted")
    return {
      type: "finished",
      exitCode: 0,
      signal: null,
      reason: "exited",
      stdoutTail: end.stdoutTail,
      stderrTail: end.stderrTail,
      outputBytes: end.outputBytes,
    };
  const reason: TerminationReason = watch.stalled && end.reason === "aborted" ? "stalled" : end.reason;
  const e: FinishedEvent = {
    type: "finished",
    exitCode: end.exitCode,
    signal: end.signal,
    reason,
    stdoutTail: end.stdoutTail,
    stderrTail: end.stderrTail,
    outputBytes: end.outputBytes,
  };
  if (end.abortReason !== undefined) e.abortReason = end.abortReason;
  if (end.exitUnknown) e.exitUnknown = true;
  return e;
}

export async function* pump(o: PumpOptions, produce: (p: PumpHandle) => Promise<AgentEnd>): AsyncGenerator<AgentEvent> {
  const q = new AsyncQueue<AgentEvent>((last, next) => last.type === "progress" && next.type === "progress");
  const ac = new AbortController();
  const onOuter = () => ac.abort(o.signal.reason);
  if (o.signal.aborted) onOuter();
  else o.signal.addEventListener("abort", onOuter, { once: true });
  const watch = { stalled: false, lingered: false };
  let stallTimer: NodeJS.Timeout | undefined;
  let lingerTimer: NodeJS.Timeout | undefined;
  const armStall = () => {
    if (!o.stallMs || ac.signal.aborted) return;
    clearTimeout(stallTimer);
    const ms = o.stallMs;
    stallTimer = setTimeout(() => {
      watch.stalled = true;
      ac.abort(new AgentStalled(ms));
    }, ms);
  };
  const handle: PumpHandle = {
    signal: ac.signal,
    emit: (e) => {
      q.push(e);
      armStall();
    },
    terminal: () => {
      if (lingerTimer || !o.afterResultMs) return;
      const ms = o.afterResultMs;
      lingerTimer = setTimeout(() => {
        watch.lingered = true;
        ac.abort(new AgentLingered(ms));
      }, ms);
    },
  };
  armStall();
  const running = (async () => {
    try {
      q.push(finishedEvent(await produce(handle), watch));
    } catch (err) {
      const message = describeError(err);
      q.push({ type: "failed", cause: "environment", message: `the agent could not run: ${message}` });
      q.push(finishedEvent({ exitCode: null, signal: null, reason: "spawn_failed", stdoutTail: "", stderrTail: message, outputBytes: 0 }, watch));
    } finally {
      clearTimeout(stallTimer);
      clearTimeout(lingerTimer);
      q.close();
    }
  })();
  try {
    yield* q;
  } finally {
    if (!ac.signal.aborted) ac.abort(new Error("the run's consumer stopped"));
    o.signal.removeEventListener("abort", onOuter);
    await running;
  }
}
