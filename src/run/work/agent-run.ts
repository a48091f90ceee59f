// The agent's part of the working phase: the agent runs resumed or fresh, its events folded into the
// run's record (drive.ts); a resume that is refused before the agent did anything is started over
// fresh, once (never in a loop), with a comment on the task saying so; an attempt that ended the
// environment's way (its process crashed, its API failed mid-turn: retry.ts) is started again after a
// backoff, up to agent.retries within the claim, each retry a heartbeat note on the card.
import { rm } from "node:fs/promises";
import type { AgentEvent, AgentRunInput, ResumeInput, RunInbox, Usage } from "../../agents/port.js";
import { describeError } from "../../errors/index.js";
import type { RunJail } from "../../jail/jail.js";
import type { ToolHost } from "../../tools/host.js";
import type { Stop } from "../record.js";
import { boundedLimit } from "./claims.js";
import { type DriveHooks, type DriveState, drive, newDriveState, resetForRetry } from "./drive.js";
import type { ToolsEndpoint, Work } from "../context.js";
import type { RetryRecord } from "../events.js";
import { addUsage, retryCause, retryDelay, retryNote } from "./retry.js";

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

export async function runAgent(w: Work & AgentRun): Promise<void> {
  const { prep, record, tools } = w;
  const state: DriveState = newDriveState();
  const plan = prep.plan;
  const input = (resume: ResumeInput | null): AgentRunInput => ({
    ...prep.input,
    signal: w.signal,
    wrapUp: w.wrapUp,
    ...(w.start.agent.notesVia === "input" ? { inbox: w.inbox } : {}),
    ...(resume ? { resume } : {}),
    ...(tools ? { tools: { socketPath: tools.endpoint.path, token: tools.endpoint.token, call: (n: string, a: unknown) => tools.host.call(n, a) } } : {}),
    ...(w.runJail ? { jail: w.runJail } : {}),
    ...(w.egressApi ? { egress: w.egressApi } : {}),
  });
  // Each attempt reports its own usage totals; the run's are the earlier attempts' plus this one's (retry.ts).
  let before: Usage | null = null;
  let resumed: string | null = null;
  const hooks: DriveHooks = {
    onEvent: (e) => {
      w.reach(e);
      if (e.type === "progress") {
        record.note(e.note);
        w.events.tell("progress", e.note);
      }
      if (e.type === "usage") {
        const u = addUsage(before, e.usage);
        record.setUsage(u);
        const over = record.facts.stop === null && u ? w.overBudget(u) : null;
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
        record.sessionStarted(id, resumed !== null && id === resumed && state.resumeFailed === null);
        w.events.tell("log", "info", "agent session journaled", { task_id: record.lease.taskId, session: id });
      } catch (err) {
        w.events.tell("log", "warn", "could not journal the agent's session", { task_id: record.lease.taskId, err: describeError(err) });
      }
    },
    onAuthFailed: () => w.stop(null),
    boundLimit: (l) => boundedLimit(l, w.seat.clock.now(), w.seat.settings.maxLimitPauseMs),
  };
  let resume: ResumeInput | null = plan.mode === "resume" && prep.resumePrompt ? { session: plan.session, prompt: prep.resumePrompt } : null;
  let freshOnce = false;
  for (;;) {
    resumed = resume?.session ?? null;
    await drive(w.start.agent, input(resume), record.facts, state, hooks);
    if (resume && state.resumeFailed !== null && !state.acted && !w.signal.aborted && !freshOnce) {
      await startFresh(w, resume.session, state.resumeFailed);
      freshOnce = true;
      resetForRetry(record.facts);
      state.resumeFailed = null;
      resume = null;
      continue;
    }
    const next = await retryAfter(w, state);
    if (!next) return;
    before = record.story.usage;
    resume = next.resume;
  }
}

/** The session cannot be continued: remember that, say so on the task, and start over fresh (once, never in a loop). */
async function startFresh(w: Work & AgentRun, failed: string, why: string): Promise<void> {
  const { record } = w;
  record.session?.resumeFailed(failed);
  w.events.tell("log", "warn", "session could not be resumed: starting fresh", { task_id: record.lease.taskId, session: failed, err: why });
  await w.start.held.fenced
    .comment(
      `hermes-kanban-bridge (seat ${w.seat.settings.seat}): could not resume the agent's session ${failed} (${why.slice(0, 300)}); started a fresh session with the earlier runs' summaries.`,
      w.seat.shutdown,
    )
    .catch((err: unknown) => w.events.tell("log", "warn", "could not post the fresh-start comment", { task_id: record.lease.taskId, err: describeError(err) }));
}

/**
 * The attempt ended the environment's way (retry.ts) and agent.retries allows another within the claim: the
 * heartbeat says so, the backoff is waited out (a stop of the run's cuts it short: no retry then), and the
 * next attempt continues the attempt's session where it has one. Null: no retry — the run decides as it is.
 */
async function retryAfter(w: Work & AgentRun, state: DriveState): Promise<{ resume: ResumeInput | null } | null> {
  const { record, tools } = w;
  const facts = record.facts;
  const retries = record.story.retries ?? [];
  const why = retryCause({ ...facts, outcome: facts.outcome ?? tools?.host.request ?? null }, w.signal.aborted || w.wrapUp.aborted);
  if (!why || retries.length >= w.seat.settings.retry.retries) return null;
  const n = retries.length + 1;
  const waitMs = retryDelay(n, w.seat.settings.retry);
  const now = w.seat.clock.now();
  // No attempt that could not start before the polite stop: the run decides now, with the time it has left.
  if (now + waitMs >= w.start.held.clock.wrapUpAt(w.start.held.deadline)) return null;
  const session = w.start.agent.resumable ? (record.story.session?.id ?? null) : null;
  const r: RetryRecord = { attempt: n, cause: why.cause, detail: why.detail, at: now };
  retries.push(r);
  record.story.retries = retries;
  w.events.tell("retry", r);
  w.events.tell("log", "warn", "the agent's attempt ended the environment's way: retrying", {
    task_id: record.lease.taskId,
    attempt: n,
    cause: why.cause,
    detail: why.detail,
    wait_ms: waitMs,
  });
  await w.start.held.fenced
    .heartbeat(retryNote(r, w.seat.settings.retry.retries, waitMs, session))
    .catch((err: unknown) => w.events.tell("log", "warn", "could not post the retry heartbeat", { task_id: record.lease.taskId, err: describeError(err) }));
  const waited = await new Promise<boolean>((resolve) => {
    const done = (waited: boolean) => {
      timer.cancel();
      w.signal.removeEventListener("abort", stopped);
      w.wrapUp.removeEventListener("abort", stopped);
      resolve(waited);
    };
    const stopped = () => done(false);
    const timer = w.seat.make.timer(now + waitMs, () => done(true));
    if (w.signal.aborted || w.wrapUp.aborted) return stopped();
    w.signal.addEventListener("abort", stopped, { once: true });
    w.wrapUp.addEventListener("abort", stopped, { once: true });
  });
  if (!waited) return null;
  // What this attempt left is forgotten (its outcome file, its requests); the workspace keeps its work.
  resetForRetry(facts);
  if (tools && tools.host.request?.kind === "complete") tools.host.request = null;
  state.acted = false;
  await rm(w.prep.input.resultFile, { force: true }).catch(() => undefined);
  return { resume: session && w.prep.continuePrompt ? { session, prompt: w.prep.continuePrompt(r) } : null };
}
