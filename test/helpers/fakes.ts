// In-memory collaborators for TaskRun unit tests (the board is the emulator in this process:
// in-process-board.ts): a closer that records intents, a workspace provider on a temp dir, scripted agents, and
// factories whose keeper, tools and timers the test drives by hand (no real waits, no processes).
import { taskEventOf } from "../../src/board/events.js";
import type { AgentAdapter, AgentEvent, AgentRunInput } from "../../src/agents/port.js";
import type { TaskDetail } from "../../src/board/port.js";
import type { LeaseKeeperDeps } from "../../src/lease/keeper.js";
import type { FencedBoard } from "../../src/lease/fenced.js";
import type { CloseResult, RunCloser } from "../../src/outbox/closer.js";
import type { CloseIntent, OutboxEntry } from "../../src/outbox/outbox.js";
import type { RunFactories } from "../../src/run/context.js";
import { NOTHING_TO_FINISH, type PreparedWorkspace, type WorkspaceProvider } from "../../src/workspace/port.js";
import { scratchDir } from "./tmp.js";

export function detailOf(id: string, o: { runId?: number; body?: string } = {}): TaskDetail {
  const runId = o.runId ?? 1;
  return {
    task: {
      id,
      title: "a task",
      body: o.body ?? null,
      assignee: "seat",
      status: "running",
      priority: 0,
      tenant: null,
      workspaceKind: "scratch",
      workspacePath: "/w",
      branchName: null,
      projectId: null,
      createdAt: 0,
      startedAt: 0,
      completedAt: null,
      result: null,
      skills: [],
      maxRuntimeSeconds: null,
      pins: { model: null, provider: null },
      completionContract: null,
      lastFailure: null,
    },
    latestSummary: null,
    parents: [],
    children: [],
    comments: [],
    events: [taskEventOf({ kind: "claimed", payload: { run_id: runId, lock: "h:1", expires: 9e9 }, createdAt: 0, runId })],
    runs: [{ id: runId, profile: "seat", status: "running", outcome: null, summary: null, error: null, metadata: null, startedAt: 0, endedAt: null }],
  };
}

export class FakeCloser implements RunCloser {
  readonly intents: CloseIntent[] = [];
  lost = 0;
  result: CloseResult = "applied";
  failWith: Error | null = null;
  async close(_fenced: FencedBoard, intent: CloseIntent) {
    if (this.failWith) throw this.failWith;
    this.intents.push(intent);
    return { result: this.result, entry: { intent } as OutboxEntry };
  }
  async recordLost() {
    this.lost += 1;
    return {} as OutboxEntry;
  }
}

export function fakeWorkspaces(): WorkspaceProvider & { dir: string } {
  const dir = scratchDir("hkb-fake-ws-");
  const ws: PreparedWorkspace = {
    mode: "board",
    local: dir,
    boardPath: dir,
    why: "test",
    boardPathOf: (f) => f,
    sharedWithBoard: true,
    finish: async () => NOTHING_TO_FINISH,
  };
  return { dir, prepare: async () => ws };
}

/** An agent whose run is the given generator of events. */
export class ScriptAgent implements AgentAdapter {
  readonly name = "script";
  readonly resumable = true;
  inputs: AgentRunInput[] = [];
  private reached: (i: AgentRunInput) => void = () => undefined;
  /** Resolves with the first run's input: the run has its keeper, timers and tools by then. */
  readonly started = new Promise<AgentRunInput>((r) => {
    this.reached = r;
  });
  constructor(
    private readonly script: (input: AgentRunInput) => AsyncGenerator<AgentEvent>,
    readonly usesTools = false,
  ) {}
  run(input: AgentRunInput): AsyncGenerator<AgentEvent> {
    this.inputs.push(input);
    this.reached(input);
    return this.script(input);
  }
}

export const finished = (o: Partial<Extract<AgentEvent, { type: "finished" }>> = {}): AgentEvent => ({
  type: "finished",
  exitCode: 0,
  signal: null,
  reason: "exited",
  stdoutTail: "",
  stderrTail: "",
  outputBytes: 0,
  ...o,
});

/** Resolves when `signal` aborts. */
export const aborted = (signal: AbortSignal) => new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener("abort", () => r(), { once: true })));

/** Factories the test drives: the keeper's callbacks, the tools endpoint, and timers fired by hand. */
export class ManualFactories implements RunFactories {
  keeperDeps: LeaseKeeperDeps | null = null;
  keeperStops = 0;
  /** Ownership checks asked for at once (board events). */
  checksNow = 0;
  keeperStopThrows = false;
  toolsThrow: Error | null = null;
  toolsClosed = 0;
  readonly timers: { at: number; fire: () => void; cancelled: boolean }[] = [];

  keeper(d: LeaseKeeperDeps) {
    this.keeperDeps = d;
    return {
      start: () => undefined,
      checkNow: () => {
        this.checksNow += 1;
      },
      stop: async () => {
        this.keeperStops += 1;
        if (this.keeperStopThrows) throw new Error("keeper stop failed");
      },
    };
  }

  async tools() {
    if (this.toolsThrow) throw this.toolsThrow;
    return {
      path: "/tmp/fake.sock",
      token: "t".repeat(48),
      close: async () => {
        this.toolsClosed += 1;
      },
    };
  }

  private armed: { at: number; then: () => void }[] = [];

  /** Resolves once a timer for `at` is armed (already, or later): what a test awaits before it fires one. */
  timerAt(at: number): Promise<void> {
    if (this.timers.some((t) => t.at === at && !t.cancelled)) return Promise.resolve();
    return new Promise((then) => this.armed.push({ at, then }));
  }

  timer(at: number, fire: () => void) {
    const t = { at, fire, cancelled: false };
    this.timers.push(t);
    for (const w of this.armed.filter((x) => x.at === at)) w.then();
    this.armed = this.armed.filter((x) => x.at !== at);
    return {
      cancel: () => {
        t.cancelled = true;
      },
    };
  }

  /** Fires every live timer due at or before `until` (epoch ms). */
  fireUntil(until: number): void {
    for (const t of this.timers.filter((x) => !x.cancelled && x.at <= until).sort((a, b) => a.at - b.at)) {
      t.cancelled = true;
      t.fire();
    }
  }
}
