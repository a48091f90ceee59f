// The unit tests' board: the emulator (the one model of Hermes the suite keeps), reached by the real CLI
// adapter (HermesCliBoard: argv, env, parsing, typed errors) over a transport that runs the emulator's
// `main()` in this process — the same function a call-server call runs, with a pid of its own for the
// claim lock — instead of a Node start per call. Each call is recorded (`calls`: the verb and what follows
// it, as the CLI was given it). Faults (HERMES_EMULATOR_FAULTS) that end in an answer work here; the ones
// that hang or kill a process need a process (emulator-faults.test.ts).
import { hostname } from "node:os";
import type { HermesCliBoard } from "../../src/board/index.js";
import type { CallSpec, CliTransport } from "../../src/board/transport.js";
import { main as emulatorMain } from "../../src/emulator/main.js";
import type { RunResult } from "../../src/process/runner.js";
import { Emu } from "./emulator.js";

let pids = 0;

export class InProcessTransport implements CliTransport {
  readonly mode = "process" as const;
  /** Every call, in order: `claim --ttl=900 -- t_…` (the arguments after `--board`). */
  readonly calls: string[] = [];
  /** HERMES_EMULATOR_FAULTS for the calls that follow (undefined: none). */
  faults: string | undefined;
  /** A scripted answer in place of the emulator's (undefined: the emulator answers) — what no fault can say. */
  answer: ((args: readonly string[]) => { code: number; stdout?: string; stderr?: string } | undefined) | undefined;
  /** Called as a call is made (after its signal was looked at): a test's way to act mid-call. */
  onCall: ((args: readonly string[]) => void) | undefined;

  async run(c: CallSpec): Promise<RunResult> {
    const started = performance.now();
    const board = c.args.findIndex((a) => a.startsWith("--board"));
    const result = (code: number | null, stdout: string, stderr: string, extra: Partial<RunResult> = {}): RunResult => ({
      argv: c.args,
      pid: undefined,
      exitCode: code,
      signal: null,
      stdout,
      stderr,
      stdoutTruncated: false,
      stdoutTotal: stdout.length,
      reason: "exited",
      reaped: 0,
      durationMs: performance.now() - started,
      ...extra,
    });
    // Like the process runner: a call given an aborted signal is not made.
    if (c.signal?.aborted) return result(null, "", "", { reason: "aborted", abortReason: c.signal.reason });
    this.calls.push(c.args.slice(board + 1).join(" "));
    this.onCall?.(c.args.slice(board + 1));
    const pid = 8_000_000 + (pids++ % 1_000_000);
    c.onSpawn?.(pid, hostname()); // the emulator writes `<host>:<pid>` as the claim's lock
    const scripted = this.answer?.(c.args.slice(board + 1));
    if (scripted) return result(scripted.code, scripted.stdout ?? "", scripted.stderr ?? "", { pid });
    const env = { ...c.env, HERMES_EMULATOR_CALL_PID: String(pid), ...(this.faults ? { HERMES_EMULATOR_FAULTS: this.faults } : {}) };
    const r = await emulatorMain(c.args, env);
    return result(r.code, r.stdout, r.stderr, { pid });
  }

  /** The verbs called since `from` (an index into `calls`). */
  verbs(from = 0): string[] {
    return this.calls.slice(from).map((c) => c.split(" ")[0] ?? "");
  }

  async close(): Promise<void> {}
}

export interface TestBoard {
  emu: Emu;
  board: HermesCliBoard;
  transport: InProcessTransport;
  /** A task on the board (ready, assigned to `assignee`). */
  seed(title: string, o?: { assignee?: string; body?: string; maxRuntime?: string }): Promise<string>;
  /** What a gateway does to an expired claim: board time moved past it, a dispatch reclaims the run. */
  expire(): Promise<void>;
  cleanup(): void;
}

/** A fresh emulator board in a temporary HERMES_HOME, and the CLI adapter over it in this process. */
export async function testBoard(slug = "b", o: { env?: Record<string, string> } = {}): Promise<TestBoard> {
  const emu = await Emu.create(slug, o.env ? { env: o.env } : {});
  const transport = new InProcessTransport();
  const board = emu.board({ transport, retry: { retries: 0, minDelayMs: 1, maxDelayMs: 1, deadlineMs: 1000 } });
  return {
    emu,
    board,
    transport,
    seed: (title, s = {}) =>
      emu.createTask(title, {
        assignee: s.assignee ?? "seat",
        ...(s.body ? { body: s.body } : {}),
        ...(s.maxRuntime ? { maxRuntime: s.maxRuntime } : {}),
      }),
    expire: async () => {
      emu.advance(7200);
      const r = await emu.kanban(["dispatch", "--json"]);
      emu.advance(0);
      if (r.code !== 0) throw new Error(`dispatch failed: ${r.stderr}`);
    },
    cleanup: () => emu.cleanup(),
  };
}
