// The working phase of a TaskRun: the agent runs while its lease is held (lease/held.ts: heartbeats,
// ownership checks, renewals), the task tools served; the lease's signals feed one first-wins stop
// ladder — the polite stop at its wrap-up, the hard stop at its deadline, at once when it is lost —
// then decide, and the gate (verification, changed files) once on a complete — still inside the
// lease's scope. Cleanup runs in reverse order and keeps going when a step fails. The agent itself
// runs in agent-run.ts.
import { describeError } from "../errors/index.js";
import { changesSince } from "../gate/changes.js";
import { applyGate } from "../gate/gate.js";
import { runVerification, verificationPlan } from "../gate/verification.js";
import type { Usage } from "../agents/port.js";
import type { Decision } from "../result/decision.js";
import { unreachableWatch } from "./reach.js";
import { confine } from "./confine.js";
import { ToolHost } from "../tools/host.js";
import { DEFAULT_TOOL_LIMITS, ToolBudget } from "../tools/budget.js";
import { NoteInbox } from "./inbox.js";
import { type AgentRun, runAgent } from "./agent-run.js";
import { overrun, overrunText, priorSpend, spentUsage } from "./budget.js";
import { type Stop, decide } from "./decide.js";
import type { WorkInput } from "./deps.js";
import type { Timer } from "./factories.js";

/**
 * This run's budget check: the task's earlier runs (from its card) and the seat's day so far, plus the usage
 * given — or what the run's proxy counted on the API route, where that is larger (budget.ts spentUsage).
 */
function budgetCheck(w: WorkInput): (u: Usage | null) => string | null {
  const b = w.budget;
  if (!b || (!b.limits.task && !b.limits.seatDaily)) return () => null;
  const prior = priorSpend(w.detail.runs, w.record.lease.runId);
  return (u) => {
    const o = overrun(b.limits, prior, b.seatToday(), spentUsage(u, w.record.story.egress?.api));
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
  const held = w.held;
  // The graceful cut: the polite stop at the lease's wrap-up (the run is being cut for its deadline), the hard stop at its deadline.
  const onWrapUp = () => {
    if (facts.stop === null) facts.stop = "deadline";
    wrapAc.abort(new Error("wrap-up before the deadline"));
  };
  const onExpired = () => {
    if (facts.stop === null) facts.stop = "deadline";
    agentAc.abort(new Error("deadline"));
  };
  const onLost = () => stop("lease_lost");
  const listen: [AbortSignal, () => void][] = [
    [held.wrapUp, onWrapUp],
    [held.expired, onExpired],
    [held.lost, onLost],
  ];
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
        w.events.tell("notes", notes, at);
      },
      arrived: (count) => w.events.tell("notes_offered", count),
    },
  });
  held.on("unresolved", (err) => stop("unresolved", describeError(err)));
  held.on("heartbeat", ({ at }) => {
    record.lastHeartbeat = at;
  });
  let tools: AgentRun["tools"] = null;
  const cleanup: [string, () => unknown][] = [];
  try {
    if (w.shutdown.aborted) onShutdown();
    else w.shutdown.addEventListener("abort", onShutdown, { once: true });
    cleanup.push(["shutdown listener", () => w.shutdown.removeEventListener("abort", onShutdown)]);
    cleanup.push([
      "timers",
      () => {
        for (const t of timers) t.cancel();
      },
    ]);
    for (const [signal, on] of listen)
      if (signal.aborted) on();
      else signal.addEventListener("abort", on, { once: true });
    cleanup.push([
      "lease signals",
      () => {
        for (const [signal, on] of listen) signal.removeEventListener("abort", on);
      },
    ]);
    held.hold(
      { clock: w.clock, timer: (at, fire) => w.make.timer(at, fire), keeper: (d) => w.make.keeper(d), recheck: w.recheck },
      { note: () => record.story.lastNote, onDetail: (d) => inbox.update(d.comments) },
    );
    cleanup.push(["the lease's heartbeat", () => held.stop()]);
    // Board events about this task reach the run while it works (an ownership check, new notes).
    record.live = { checkNow: () => held.checkNow() };
    cleanup.push(["board events", () => (record.live = null)]);
    // The task tools' budget for this run (agent.budget.tools): the tools' calls and the close's attachments.
    record.tools = new ToolBudget({ ...DEFAULT_TOOL_LIMITS, ...w.budget?.limits.tools }, () => w.clock.now());
    record.story.tools = record.tools;
    if (w.agent.usesTools) {
      const host = new ToolHost({
        budget: record.tools,
        fenced: held.fenced,
        redactor: w.redactor,
        onNote: (n) => {
          record.note(n);
          w.events.tell("progress", n);
        },
        ...(w.agent.notesVia === "tools" ? { inbox } : {}),
      });
      tools = { host, endpoint: await w.make.tools(host, w.adopted?.tools ?? undefined) };
      const t = tools;
      cleanup.push(["task tools", () => t.endpoint.close()]);
      cleanup.push(["task tools host", () => t.host.end()]);
    }
    // The jail, its caps, its network and the repository's guard (confine.ts): undone in reverse, last.
    const reach = unreachableWatch({ ...w, stop });
    const over = budgetCheck(w);
    const confined = await confine(w, {
      // The proxy's count of the API moved (any process of the jail may spend the key): the budgets see it at once.
      onApiUse: () => {
        const crossed = facts.stop === null ? over(record.story.usage) : null;
        if (crossed) stop("budget", crossed);
      },
      socket: tools?.endpoint.path,
      stop,
      abort: (why) => agentAc.abort(why),
      timers,
      unreachable: (message) => reach({ type: "unreachable", message }),
    });
    cleanup.push(...confined.cleanup);
    const runJail = confined.runJail;
    // The workspace is claimed (and handed to the agent's user) before anything of the run starts in it.
    const refused = await confined.claim();
    if (refused) return refused;
    // A task (or seat) already over its budget does not start the agent at all.
    const before = over(null);
    if (before) {
      facts.stop = "budget";
      facts.stopDetail = before;
    } else
      await runAgent({ ...w, tools, runJail, egressApi: confined.egress, inbox, signal: agentAc.signal, wrapUp: wrapAc.signal, stop, reach, overBudget: over });
    await confined.afterAgent();
    facts.commentsSeen = inbox.watermark();
    if (tools) {
      // Requests made through the tools; an outcome file (command agent) takes precedence.
      tools.host.end();
      facts.outcome ??= tools.host.request;
    }
    const changes = prep.before ? await changesSince(prep.ws.local, prep.before, w.gate.git, w.shutdown).catch(() => null) : null;
    const earlier = record.session?.earlierFiles() ?? [];
    record.story.changedFiles = changes || earlier.length ? [...new Set([...earlier, ...(changes?.files ?? [])])].sort() : null;
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
          : applyGate(d, { verification, skipped: plan.skipped, changedFiles: record.story.changedFiles, diffStat: changes?.diffStat ?? null }, w.gate.config);
    }
    return await confined.settle(d);
  } finally {
    for (const [name, step] of cleanup.reverse()) {
      try {
        await step();
      } catch (err) {
        w.events.tell("log", "warn", `cleanup of ${name} failed`, { task_id: record.lease.taskId, err: describeError(err) });
      }
    }
  }
}
