// The agent's part of the working phase: the agent runs resumed or fresh, its events folded into the
// run's record (drive.ts); a resume that is refused before the agent did anything is started over
// fresh, once (never in a loop), with a comment on the task saying so.
import type { AgentEvent, AgentRunInput, RunInbox, Usage } from "../agents/port.js";
import { describeError } from "../errors/index.js";
import type { RunJail } from "../jail/jail.js";
import type { ToolHost } from "../tools/host.js";
import type { Stop } from "./decide.js";
import { DEFAULT_MAX_PAUSE_MS } from "../result/limits.js";
import { boundedLimit } from "./limit.js";
import { type DriveHooks, type DriveState, drive, newDriveState, resetForRetry } from "./drive.js";
import type { ToolsEndpoint } from "./factories.js";
import type { WorkInput } from "./deps.js";

export interface AgentRun {
  tools: { host: ToolHost; endpoint: ToolsEndpoint } | null;
  /** The run's jail (every process of the agent starts through it); absent: as they are. */
  runJail: RunJail | undefined;
  /** The CLI's API base inside the jail, when the run's proxy forwards it. */
  egressApi?: { apiBase: string } | undefined;
  /** Operator notes for the agent (the adapters that take them live read it). */
  inbox: RunInbox;
  signal: AbortSignal;
  wrapUp: AbortSignal;
  stop: (why: Stop, detail?: string) => void;
  /** The unreachable watch (reach.ts): every agent event goes through it. */
  reach: (e: AgentEvent) => void;
  /** The budget crossed by this usage so far (its text for the block), or null. */
  overBudget: (u: Usage) => string | null;
}

export async function runAgent(w: WorkInput & AgentRun): Promise<void> {
  const { prep, record, tools } = w;
  const state: DriveState = newDriveState();
  const plan = prep.plan;
  const input = (resume: boolean): AgentRunInput => ({
    ...prep.input,
    signal: w.signal,
    wrapUp: w.wrapUp,
    ...(w.agent.notesVia === "input" ? { inbox: w.inbox } : {}),
    ...(resume && plan.mode === "resume" && prep.resumePrompt ? { resume: { session: plan.session, prompt: prep.resumePrompt } } : {}),
    ...(tools ? { tools: { socketPath: tools.endpoint.path, token: tools.endpoint.token, call: (n: string, a: unknown) => tools.host.call(n, a) } } : {}),
    ...(w.runJail ? { jail: w.runJail } : {}),
    ...(w.egressApi ? { egress: w.egressApi } : {}),
  });
  const hooks: DriveHooks = {
    onEvent: (e) => {
      w.reach(e);
      if (e.type === "progress") {
        record.note(e.note);
        w.events.tell("progress", e.note);
      }
      if (e.type === "usage") {
        record.setUsage(e.usage);
        const over = record.facts.stop === null ? w.overBudget(e.usage) : null;
        if (over) w.stop("budget", over);
      }
      w.events.tell("agent", e);
    },
    onStarted: (pid) =>
      w.events.tell("started", {
        pid,
        resultFile: prep.input.resultFile,
        runDir: prep.input.runDir,
        outputDir: prep.input.outputDir,
        workspace: prep.ws.local,
        tools: tools ? { path: tools.endpoint.path, token: tools.endpoint.token } : null,
      }),
    onSession: (id) => {
      try {
        record.sessionStarted(id, plan.mode === "resume" && id === plan.session && state.resumeFailed === null);
        w.events.tell("log", "info", "agent session journaled", { task_id: record.lease.taskId, session: id });
      } catch (err) {
        w.events.tell("log", "warn", "could not journal the agent's session", { task_id: record.lease.taskId, err: describeError(err) });
      }
    },
    onAuthFailed: () => w.stop(null),
    boundLimit: (l) => boundedLimit(l, w.clock.now(), w.maxLimitPauseMs ?? DEFAULT_MAX_PAUSE_MS),
  };
  const resume = plan.mode === "resume";
  await drive(w.agent, input(resume), record.facts, state, hooks);
  if (!resume || state.resumeFailed === null || state.acted || w.signal.aborted) return;
  // The session cannot be continued: remember that, say so on the task, and start over fresh once.
  const failed = plan.session;
  record.session?.resumeFailed(failed);
  const why = state.resumeFailed;
  w.events.tell("log", "warn", "session could not be resumed: starting fresh", { task_id: record.lease.taskId, session: failed, err: why });
  await w.held.fenced
    .comment(
      `hermes-kanban-bridge (seat ${w.seat}): could not resume the agent's session ${failed} (${why.slice(0, 300)}); started a fresh session with the earlier runs' summaries.`,
      w.shutdown,
    )
    .catch((err: unknown) => w.events.tell("log", "warn", "could not post the fresh-start comment", { task_id: record.lease.taskId, err: describeError(err) }));
  resetForRetry(record.facts);
  state.resumeFailed = null;
  await drive(w.agent, input(false), record.facts, state, hooks);
}
