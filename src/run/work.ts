// The working phase of a TaskRun: the agent runs with the lease keeper heartbeating, the task tools
// served, a polite stop at deadline − wrap-up and the hard stop at the deadline (moved later when the
// CLI renews the claim on each heartbeat, up to the run's latest deadline); a resumed session
// that cannot be continued is started over fresh once (never in a loop); then decide, and the gate
// (verification, changed files) once on a complete — still inside the lease's scope. Cleanup runs in
// reverse order and keeps going when a step fails.
import type { AgentRunInput } from "../agents/port.js";
import type { TaskDetail } from "../board/port.js";
import type { SessionRecord } from "../continuity/journal.js";
import { describeError } from "../errors/index.js";
import { changesSince } from "../gate/changes.js";
import { applyGate } from "../gate/gate.js";
import { runVerification, verificationPlan } from "../gate/verification.js";
import type { Lease } from "../lease/lease.js";
import type { Decision } from "../result/decision.js";
import { ToolHost } from "../tools/host.js";
import type { RunStory } from "./close-text.js";
import { type RunFacts, type Stop, decide } from "./decide.js";
import { type DriveState, drive, newDriveState, resetForRetry } from "./drive.js";
import type { Timer, ToolsEndpoint } from "./factories.js";
import type { Prepared } from "./prepare.js";
import type { TaskRunDeps } from "./deps.js";
import type { RunHooks, RunPhase } from "./hooks.js";

/** The run's dependencies the working phase uses, and what the run has so far. */
export type WorkInput = Pick<
  TaskRunDeps,
  | "board"
  | "agent"
  | "clock"
  | "seat"
  | "author"
  | "traceId"
  | "timing"
  | "deadline"
  | "extend"
  | "killGraceMs"
  | "shutdown"
  | "continuity"
  | "gate"
  | "redactor"
  | "make"
  | "adopted"
  | "recheck"
  | "hooks"
> & {
  /** The lease as read after the claim (its run id). */
  lease: Lease;
  prep: Prepared;
  detail: TaskDetail;
  facts: RunFacts;
  story: RunStory;
  setPhase: (p: RunPhase) => void;
  note: () => string | undefined;
  setNote: (n: string) => void;
};

export async function workRun(w: WorkInput): Promise<Decision> {
  const { facts, prep } = w;
  facts.commentsSeen = w.detail.comments.length;
  const agentAc = new AbortController();
  const wrapAc = new AbortController();
  const timers: Timer[] = [];
  const stop = (why: Stop, detail?: string) => {
    if (facts.stop === null) {
      facts.stop = why;
      if (detail) facts.stopDetail = detail;
    }
    wrapAc.abort(new Error(`polite stop: ${why ?? "stopped"}`));
    timers.push(w.make.timer(w.clock.now() + w.killGraceMs, () => agentAc.abort(new Error(why ?? "stopped"))));
  };
  const onShutdown = () => stop("shutdown");
  // The graceful cut: the polite stop at deadline − wrap-up (the run is being cut for its deadline), the hard stop at it.
  let deadline = w.deadline;
  let cut: Timer[] = [];
  const arm = (at: number) => {
    for (const t of cut) t.cancel();
    deadline = at;
    facts.deadlineAt = new Date(at).toISOString();
    cut = [
      w.make.timer(at - w.timing.wrapUpSeconds * 1000, () => {
        if (facts.stop === null) facts.stop = "deadline";
        wrapAc.abort(new Error("wrap-up before the deadline"));
      }),
      w.make.timer(at, () => {
        if (facts.stop === null) facts.stop = "deadline";
        agentAc.abort(new Error("deadline"));
      }),
    ];
  };
  const extend = w.extend;
  const onExtended = (expiresAt: number) => {
    const next = Math.min(expiresAt - w.timing.safetySeconds * 1000, extend?.latest ?? expiresAt);
    if (next <= deadline || facts.stop !== null || wrapAc.signal.aborted) return;
    arm(next);
    w.hooks?.onDeadline?.(next);
  };
  const keeper = w.make.keeper({
    board: w.board,
    lease: w.lease,
    intervalMs: w.timing.heartbeatSeconds * 1000,
    clock: w.clock,
    ...(w.recheck ? { recheckAttempts: w.recheck.attempts, recheckDelayMs: w.recheck.delayMs } : {}),
    note: w.note,
    onLost: () => stop("lease_lost"),
    onUnresolved: (err) => stop("unresolved", describeError(err)),
    ...(w.hooks?.onHeartbeat ? { onHeartbeat: w.hooks.onHeartbeat } : {}),
    ...(w.hooks?.onHeartbeatFailure ? { onFailure: w.hooks.onHeartbeatFailure } : {}),
    ...(extend ? { extend: { ttlSeconds: extend.ttlSeconds, now: () => w.clock.now(), onExtended } } : {}),
  });
  let tools: { host: ToolHost; endpoint: ToolsEndpoint } | null = null;
  const cleanup: [string, () => unknown][] = [];
  try {
    if (w.shutdown.aborted) onShutdown();
    else w.shutdown.addEventListener("abort", onShutdown, { once: true });
    cleanup.push(["shutdown listener", () => w.shutdown.removeEventListener("abort", onShutdown)]);
    arm(w.deadline);
    cleanup.push([
      "timers",
      () => {
        for (const t of [...timers, ...cut]) t.cancel();
      },
    ]);
    keeper.start();
    cleanup.push(["lease keeper", () => keeper.stop()]);
    if (w.agent.usesTools) {
      const host = new ToolHost({ board: w.board, lease: w.lease, author: w.author, redactor: w.redactor, onNote: w.setNote });
      tools = { host, endpoint: await w.make.tools(host, w.adopted?.tools ?? undefined) };
      const t = tools;
      cleanup.push(["task tools", () => t.endpoint.close()]);
      cleanup.push(["task tools host", () => t.host.end()]);
    }
    const state = newDriveState();
    await runAgent(w, state, tools, agentAc.signal, wrapAc.signal, stop);
    if (tools) {
      // Requests made through the tools; an outcome file (command agent) takes precedence.
      tools.host.end();
      facts.outcome ??= tools.host.request;
    }
    w.story.usage = state.usage;
    const changes = prep.before ? await changesSince(prep.ws.local, prep.before, w.gate.env).catch(() => null) : null;
    w.story.changedFiles = changes?.files ?? null;
    let d = decide(facts);
    if (d.type === "complete") {
      w.setPhase("verifying");
      const plan = verificationPlan(w.gate.config, w.detail.task.body);
      const verification = await runVerification(plan.run, {
        cwd: prep.ws.local,
        env: w.gate.env,
        timeoutMs: w.gate.config.timeoutSeconds * 1000,
        tailChars: w.gate.config.outputTailChars,
        signal: agentAc.signal,
      });
      // A stop (deadline, lease, shutdown) during verification overrides the gate's verdict.
      d =
        facts.stop !== null
          ? decide(facts)
          : applyGate(d, { verification, skipped: plan.skipped, changedFiles: changes?.files ?? null, diffStat: changes?.diffStat ?? null }, w.gate.config);
    }
    return d;
  } finally {
    for (const [name, step] of cleanup.reverse()) {
      try {
        await step();
      } catch (err) {
        w.hooks?.onLog?.("warn", `cleanup of ${name} failed`, { task_id: w.lease.taskId, err: describeError(err) });
      }
    }
  }
}

/** The agent, resumed or fresh; a resume that is refused before the agent did anything is started over fresh, once. */
async function runAgent(
  w: WorkInput,
  state: DriveState,
  tools: { host: ToolHost; endpoint: ToolsEndpoint } | null,
  signal: AbortSignal,
  wrapUp: AbortSignal,
  stop: (why: Stop) => void,
): Promise<void> {
  const { prep } = w;
  const journal = w.continuity.journal;
  let record: SessionRecord = prep.record;
  const input = (resume: boolean): AgentRunInput => ({
    ...prep.input,
    signal,
    wrapUp,
    ...(resume && prep.plan.mode === "resume" && prep.resumePrompt ? { resume: { session: prep.plan.session, prompt: prep.resumePrompt } } : {}),
    ...(tools ? { tools: { socketPath: tools.endpoint.path, token: tools.endpoint.token, call: (n: string, a: unknown) => tools.host.call(n, a) } } : {}),
  });
  const hooks = {
    onEvent: (e: Parameters<NonNullable<RunHooks["onAgentEvent"]>>[0]) => {
      if (e.type === "progress") w.setNote(e.note);
      w.hooks?.onAgentEvent?.(e);
    },
    onStarted: (pid: number) =>
      w.hooks?.onStarted?.({
        pid,
        resultFile: prep.input.resultFile,
        runDir: prep.input.runDir,
        workspace: prep.ws.local,
        tools: tools ? { path: tools.endpoint.path, token: tools.endpoint.token } : null,
      }),
    onSession: (id: string) => {
      w.story.session = { id, resumed: prep.plan.mode === "resume" && id === prep.plan.session && state.resumeFailed === null };
      // Journaled at once: a bridge crash later in the run must not lose the handle.
      record = { ...record, session: id };
      try {
        journal.put(record);
      } catch (err) {
        w.hooks?.onLog?.("warn", "could not journal the agent's session", { task_id: w.lease.taskId, err: describeError(err) });
      }
    },
    onAuthFailed: () => stop(null),
  };
  const resume = prep.plan.mode === "resume";
  await drive(w.agent, input(resume), w.facts, state, hooks);
  if (!resume || state.resumeFailed === null || state.acted || signal.aborted) {
    prep.record = record;
    return;
  }
  // The session cannot be continued: remember that, say so on the task, and start over fresh once.
  const failed = prep.plan.mode === "resume" ? prep.plan.session : "?";
  record = { ...record, session: null, failedSessions: [...record.failedSessions, failed].slice(-20) };
  journal.put(record);
  const why = state.resumeFailed;
  w.hooks?.onLog?.("warn", "session could not be resumed: starting fresh", { task_id: w.lease.taskId, session: failed, err: why });
  await w.board
    .comment(
      w.lease.taskId,
      w.author,
      w.redactor.redact(
        `hermes-kanban-bridge (seat ${w.seat}): could not resume the agent's session ${failed} (${why.slice(0, 300)}); started a fresh session with the earlier runs' summaries.`,
      ),
    )
    .catch((err: unknown) => w.hooks?.onLog?.("warn", "could not post the fresh-start comment", { task_id: w.lease.taskId, err: describeError(err) }));
  resetForRetry(w.facts);
  state.resumeFailed = null;
  await drive(w.agent, input(false), w.facts, state, hooks);
  prep.record = record;
}
