// One `hermes kanban` call: argv (argv.ts), scrubbed env with the fencing pair when a lease is given
// (env.ts), the process (process/runner), the typed error (classify.ts), the call record for metrics,
// and the retry policy (retry.ts). The only code that starts the hermes command.
import { Transient } from "../errors/board.js";
import { type RunResult, runProcess } from "../process/runner.js";
import { type VerbCall, buildArgv } from "./argv.js";
import { classify } from "./classify.js";
import { type CliEnvOptions, buildCliEnv, remoteVars } from "./env.js";
import { OutputParseError } from "./parse.js";
import type { Fence } from "./port.js";
import { hermesArgv } from "./remote.js";
import { DEFAULT_RETRY, type RetryPolicy, withRetry } from "./retry.js";

export interface CliCallRecord {
  verb: string;
  exitCode: number | null;
  durationMs: number;
  ok: boolean;
}

export interface HermesCliOptions {
  slug: string;
  /** argv prefix: ["hermes"], ["python3", "/opt/hermes/hermes"], ["ssh", "board-host", "hermes"]. */
  command: readonly string[];
  env: CliEnvOptions;
  /** Per call; above the CLI's own 120 s SQLite busy wait by default. */
  timeoutMs?: number;
  retry?: RetryPolicy;
  onCall?: (rec: CliCallRecord) => void;
  onRetry?: (verb: string, err: Error, attempt: number) => void;
}

export class HermesCli {
  readonly slug: string;
  readonly retry: RetryPolicy;
  private readonly timeoutMs: number;

  constructor(private readonly o: HermesCliOptions) {
    this.slug = o.slug;
    this.timeoutMs = o.timeoutMs ?? 150_000;
    this.retry = o.retry ?? DEFAULT_RETRY;
  }

  /** One call; a failure is thrown as a typed board error. */
  async run(
    call: VerbCall,
    o: { taskId?: string | undefined; fence?: Fence | undefined; signal?: AbortSignal | undefined; onSpawn?: (pid: number) => void } = {},
  ): Promise<RunResult> {
    const { argv, env } = this.spawnSpec(buildArgv([], this.slug, call), o.fence);
    const r = await runProcess({ argv, env, timeoutMs: this.timeoutMs, captureLimit: 64 * 1024 * 1024, signal: o.signal, onSpawn: o.onSpawn });
    const err = classify(r, { verb: call.verb, board: this.slug, taskId: o.taskId });
    this.o.onCall?.({ verb: call.verb, exitCode: r.exitCode, durationMs: r.durationMs, ok: err === null });
    if (err) throw err;
    return r;
  }

  /** A call outside `kanban` (e.g. `hermes --version`), unclassified. */
  raw(args: readonly string[], signal?: AbortSignal): Promise<RunResult> {
    return runProcess({ ...this.spawnSpec(args), timeoutMs: this.timeoutMs, signal });
  }

  retrying<T>(verb: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return withRetry(fn, this.retry, { signal, onRetry: (err, attempt) => this.o.onRetry?.(verb, err, attempt) });
  }

  /** Parses a successful call's output; output that does not parse is a transient failure. */
  parsed<T>(verb: string, taskId: string | undefined, r: RunResult, parse: () => T): T {
    try {
      return parse();
    } catch (err) {
      if (err instanceof OutputParseError)
        throw new Transient({ verb, board: this.slug, taskId, exitCode: r.exitCode, stderrTail: err.sample, cause: err }, err.message);
      throw err;
    }
  }

  /** The watch child's argv and env (the watch verb runs long and is read line by line). */
  watchSpawn(assignee: string): { argv: string[]; env: Record<string, string> } {
    return this.spawnSpec(buildArgv([], this.slug, { verb: "watch", options: [["assignee", assignee]] }));
  }

  /** argv and env of one call: the command prefix + `args`, the scrubbed env (+ the fencing pair); through ssh, both on the remote command line. */
  private spawnSpec(args: readonly string[], fence?: Fence): { argv: string[]; env: Record<string, string> } {
    const env = buildCliEnv(this.o.env, fence);
    return { argv: hermesArgv(this.o.command, args, remoteVars(this.o.env, env)), env };
  }
}
