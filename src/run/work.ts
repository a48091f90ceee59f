// The working phase of a TaskRun: the agent runs with the lease keeper heartbeating, the task tools
// served, a polite stop at deadline − wrap-up and the hard stop at the deadline (moved later when the
// CLI renews the claim on each heartbeat, up to the run's latest deadline); then decide, and the gate
// (verification, changed files) once on a complete — still inside the lease's scope. Cleanup runs in
// reverse order and keeps going when a step fails. The agent itself runs in agent-run.ts.
import { describeError } from "../errors/index.js";
import { changesSince } from "../gate/changes.js";
import { applyGate } from "../gate/gate.js";
import { runVerification, verificationPlan } from "../gate/verification.js";
import type { Usage } from "../agents/port.js";
import type { Decision } from "../result/decision.js";
import { unreachableWatch } from "./reach.js";
import { confine } from "./confine.js";
import { ToolHost } from "../tools/host.js";
import { NoteInbox } from "./inbox.js";
import { boundedLimit } from "./limit.js";
import { type AgentRun, runAgent } from "./agent-run.js";
import { overrun, overrunText, priorSpend } from "./budget.js";
import { type Stop, decide } from "./decide.js";
import type { WorkInput } from "./deps.js";
import type { Timer } from "./factories.js";

/** This run's budget check: the task's earlier runs (from its card) and the seat's day so far, plus the usage given. */
function budgetCheck(w: WorkInput): (u: Usage | null) => string | null {
  const b = w.budget;
  if (!b || (!b.limits.task && !b.limits.seatDaily)) return () => null;
  const prior = priorSpend(w.detail.runs, w.record.lease.runId);
  return (u) => {
    const o = overrun(b.limits, prior, b.seatToday(), u);
    return o ? overrunText(o) : null;
  };
}

export async function workRun(w: WorkInput): Promise<Decision> {
  const { prep, record } = w;
  const facts = record.facts;
  facts.commentsSeen = w.detail.comments.length;
  const agentAc = new AbortController();
  const wrapAc = new AbortController();
  const timers: Timer[] = [];
  const stop = (why: Stop, detail?: string) => {
    if (facts.stop === null) {
      facts.stop = why;
      if (detail) facts.stopDetail = detail;
    }
    // A lost lease stops the agent at once: the workspace is another run's now. Anything else is a polite stop first.
    if (why === "lease_lost") agentAc.abort(new Error("lease lost"));
    wrapAc.abort(new Error(`polite stop: ${why ?? "stopped"}`));
    timers.push(w.make.timer(w.clock.now() + w.killGraceMs, () => agentAc.abort(new Error(why ?? "stopped"))));
  };
  const onShutdown = () => stop("shutdown");
  // The graceful cut: the polite stop at deadline − wrap-up (the run is being cut for its deadline), the hard stop at it.
  const lc = w.leaseClock;
  let deadline = lc.deadline;
  let cut: Timer[] = [];
  const arm = (at: number) => {
    for (const t of cut) t.cancel();
    deadline = at;
    record.deadlineMoved(at);
    cut = [
      w.make.timer(lc.wrapUpAt(at), () => {
        if (facts.stop === null) facts.stop = "deadline";
        wrapAc.abort(new Error("wrap-up before the deadline"));
      }),
      w.make.timer(at, () => {
        if (facts.stop === null) facts.stop = "deadline";
        agentAc.abort(new Error("deadline"));
      }),
    ];
  };
  const onExtended = (expiresAt: number) => {
    const next = lc.deadlineAfterRenewal(expiresAt);
    if (next <= deadline || facts.stop !== null || wrapAc.signal.aborted) return;
    arm(next);
    w.hooks?.onDeadline?.(next);
  };
  const inbox = new NoteInbox({
    author: w.author,
    seen: w.detail.comments.length,
    now: () => w.clock.now(),
    authors: w.steering?.authors,
    maxNotes: w.steering?.maxNotesPerRun,
    hooks: {
      delivered: (notes, at) => {
        // The journal keeps what the agent has seen: a crash now does not hand the same note over twice.
        record.session?.notesSeen(inbox.watermark());
        const last = notes.at(-1);
        if (last) record.operatorNote = { ...last, deliveredAt: at };
        w.hooks?.onNotes?.(notes, at);
      },
    },
  });
  const keeper = w.make.keeper({
    fenced: w.fenced,
    intervalMs: lc.heartbeatMs,
    // The first beat right after the claim's read (lease/keeper.ts), the next ones every interval.
    firstBeatMs: 0,
    clock: w.clock,
    ...(w.recheck ? { recheckAttempts: w.recheck.attempts, recheckDelayMs: w.recheck.delayMs } : {}),
    note: () => record.story.lastNote,
    onDetail: (d) => inbox.update(d.comments),
    onLost: () => stop("lease_lost"),
    onUnresolved: (err) => stop("unresolved", describeError(err)),
    onHeartbeat: () => {
      record.lastHeartbeat = w.clock.now();
      w.hooks?.onHeartbeat?.();
    },
    ...(w.hooks?.onHeartbeatFailure ? { onFailure: w.hooks.onHeartbeatFailure } : {}),
    ...(lc.renewal ? { extend: { ttlSeconds: () => lc.renewalTtl(w.clock.now()), now: () => w.clock.now(), onExtended } } : {}),
  });
  let tools: AgentRun["tools"] = null;
  const cleanup: [string, () => unknown][] = [];
  try {
    if (w.shutdown.aborted) onShutdown();
    else w.shutdown.addEventListener("abort", onShutdown, { once: true });
    cleanup.push(["shutdown listener", () => w.shutdown.removeEventListener("abort", onShutdown)]);
    arm(lc.deadline);
    cleanup.push([
      "timers",
      () => {
        for (const t of [...timers, ...cut]) t.cancel();
      },
    ]);
    keeper.start();
    cleanup.push(["lease keeper", () => keeper.stop()]);
    // Board events about this task reach the run while it works (an ownership check, new notes).
    record.live = { checkNow: () => keeper.checkNow() };
    cleanup.push(["board events", () => (record.live = null)]);
    if (w.agent.usesTools) {
      const host = new ToolHost({
        fenced: w.fenced,
        redactor: w.redactor,
        onNote: (n) => record.note(n),
        ...(w.agent.notesVia === "tools" ? { inbox } : {}),
      });
      tools = { host, endpoint: await w.make.tools(host, w.adopted?.tools ?? undefined) };
      const t = tools;
      cleanup.push(["task tools", () => t.endpoint.close()]);
      cleanup.push(["task tools host", () => t.host.end()]);
    }
    // The jail, its caps, its network and the repository's guard (confine.ts): undone in reverse, last.
    const reach = unreachableWatch({ ...w, stop });
    const confined = await confine(w, {
      socket: tools?.endpoint.path,
      stop,
      abort: (why) => agentAc.abort(why),
      timers,
      unreachable: (message) => reach({ type: "unreachable", message }),
    });
    cleanup.push(...confined.cleanup);
    const runJail = confined.runJail;
    // A task (or seat) already over its budget does not start the agent at all.
    const over = budgetCheck(w);
    const before = over(null);
    if (before) {
      facts.stop = "budget";
      facts.stopDetail = before;
    } else
      await runAgent({ ...w, tools, runJail, egressApi: confined.egress, inbox, signal: agentAc.signal, wrapUp: wrapAc.signal, stop, reach, overBudget: over });
    await confined.afterAgent();
    // The reset time is the agent's word: bounded once, before anything decides, closes or pauses on it.
    if (facts.limit) facts.limit = boundedLimit(facts.limit, w.clock.now(), w.maxLimitPauseMs ?? 168 * 3600_000);
    facts.commentsSeen = inbox.watermark();
    if (tools) {
      // Requests made through the tools; an outcome file (command agent) takes precedence.
      tools.host.end();
      facts.outcome ??= tools.host.request;
    }
    const changes = prep.before ? await changesSince(prep.ws.local, prep.before, w.gate.git, w.shutdown).catch(() => null) : null;
    record.story.changedFiles = changes?.files ?? null;
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
        jail: runJail,
      });
      // A stop (deadline, lease, shutdown) during verification overrides the gate's verdict.
      d =
        facts.stop !== null
          ? decide(facts)
          : applyGate(d, { verification, skipped: plan.skipped, changedFiles: changes?.files ?? null, diffStat: changes?.diffStat ?? null }, w.gate.config);
    }
    return await confined.settle(d);
  } finally {
    for (const [name, step] of cleanup.reverse()) {
      try {
        await step();
      } catch (err) {
        w.hooks?.onLog?.("warn", `cleanup of ${name} failed`, { task_id: record.lease.taskId, err: describeError(err) });
      }
    }
  }
}
