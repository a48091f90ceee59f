// The working phase of a TaskRun, told as the story of a run: scopes open on one release stack (the stop
// ladder fed by the lease's signals and the seat's shutdown, the operator-note inbox, the lease's hold, the
// task tools, the run's cell: jail, caps, egress proxy, repository guard), the agent runs (agent-run.ts),
// then decide, and the gate (verification, changed files) once on a complete — still inside the lease's
// scope. The stack is released last-in-first-out, every step guarded, whatever happened.
import { describeError } from "../../errors/index.js";
import { changesSince } from "../../gate/changes.js";
import { runVerification, verificationPlan } from "../../gate/verification.js";
import type { Usage } from "../../agents/port.js";
import { Releasers } from "../../log/releasers.js";
import type { Decision } from "../../result/decision.js";
import { unreachableWatch } from "./reach.js";
import { RunCell } from "./cell.js";
import { runAgent } from "./agent-run.js";
import { overrun, overrunText, priorSpend, spentUsage } from "./budget.js";
import { applyGate, decide } from "./decide.js";
import type { Work } from "../context.js";
import { holdLease, openInbox, openTools } from "./scopes.js";
import { RunStops } from "./stops.js";

/**
 * This run's budget check: the task's earlier runs (from its card) and the seat's day so far, plus the usage
 * given — or what the run's proxy counted on the API route, where that is larger (budget.ts spentUsage).
 */
function budgetCheck(w: Work): (u: Usage | null) => string | null {
  const limits = w.seat.settings.budget;
  if (!limits.task && !limits.seatDaily) return () => null;
  const prior = priorSpend(w.detail.runs, w.record.lease.runId);
  return (u) => {
    const o = overrun(limits, prior, w.seat.seatToday(), spentUsage(u, w.record.story.egress?.api));
    return o ? overrunText(o) : null;
  };
}

export async function workRun(w: Work): Promise<Decision> {
  const { record } = w;
  const facts = record.facts;
  facts.commentsSeen = w.detail.comments.length;
  const inbox = openInbox(w);
  const scope = new Releasers();
  try {
    const stops = RunStops.open(w, scope);
    holdLease(w, inbox, stops, scope);
    const tools = await openTools(w, inbox, scope);
    const reach = unreachableWatch({ record, seat: w.seat, stop: stops.stop });
    const over = budgetCheck(w);
    const cell = await RunCell.open(w, cellHooks(stops, over, reach, w, tools?.endpoint.path), scope, (c) => tellCell(c, w));
    // The workspace is claimed (and handed to the agent's user) before anything of the run starts in it.
    const refused = await cell.claim();
    if (refused) return refused;
    // A task (or seat) already over its budget does not start the agent at all.
    const before = over(null);
    if (before) {
      facts.stop = "budget";
      facts.stopDetail = before;
    } else {
      const signals = { signal: stops.agent.signal, wrapUp: stops.wrapUp.signal };
      await runAgent({ ...w, ...signals, tools, runJail: cell.runJail, egressApi: cell.egress, inbox, stop: stops.stop, reach, overBudget: over });
    }
    await cell.afterAgent();
    facts.commentsSeen = inbox.watermark();
    if (tools) {
      // Requests made through the tools; an outcome file (command agent) takes precedence.
      tools.host.end();
      facts.outcome ??= tools.host.request;
    }
    return await cell.settle(await gate(w, cell, stops.agent.signal));
  } finally {
    await scope.releaseAll((name, err) => w.events.tell("log", "warn", `cleanup of ${name} failed`, { task_id: record.lease.taskId, err: describeError(err) }));
  }
}

/** What the cell acts on: the stop ladder, the budgets (the proxy's count moved: checked at once) and the unreachable watch. */
function cellHooks(
  stops: RunStops,
  over: (u: Usage | null) => string | null,
  reach: (e: { type: "unreachable"; message: string }) => void,
  w: Work,
  socket?: string,
) {
  const facts = w.record.facts;
  return {
    socket,
    stop: stops.stop,
    abort: (why: Error) => stops.agent.abort(why),
    timers: stops.timers,
    // The proxy's count of the API moved (any process of the jail may spend the key): the budgets see it at once.
    onApiUse: () => {
      const crossed = facts.stop === null ? over(w.record.story.usage) : null;
      if (crossed) stops.stop("budget", crossed);
    },
    unreachable: (message: string) => reach({ type: "unreachable", message }),
  };
}

/** The cell's events are the run's own. */
function tellCell(cell: RunCell, w: Work): void {
  cell.on("egress_refused", (...a) => w.events.tell("egress_refused", ...a));
  cell.on("egress_failed", (...a) => w.events.tell("egress_failed", ...a));
  cell.on("log", (...a) => w.events.tell("log", ...a));
}

/** The changed files, decide, and on a complete the gate; a stop during verification (deadline, lease, shutdown) overrides its verdict. */
async function gate(w: Work, cell: RunCell, signal: AbortSignal): Promise<Decision> {
  const { prep, record, seat } = w;
  const facts = record.facts;
  const changes = prep.before ? await changesSince(prep.ws.local, prep.before, seat.git, seat.shutdown).catch(() => null) : null;
  const earlier = record.session?.earlierFiles() ?? [];
  record.story.changedFiles = changes || earlier.length ? [...new Set([...earlier, ...(changes?.files ?? [])])].sort() : null;
  const d = decide(facts);
  if (d.type !== "complete") return d;
  w.setPhase("verifying");
  const config = seat.settings.gate;
  const plan = verificationPlan(config, w.detail.task.body);
  const verification = await runVerification(plan.run, {
    cwd: prep.ws.local,
    env: seat.gateEnv,
    timeoutMs: config.timeoutSeconds * 1000,
    tailChars: config.outputTailChars,
    signal,
    jail: cell.runJail,
  });
  if (facts.stop !== null) return decide(facts);
  return applyGate(d, { verification, skipped: plan.skipped, changedFiles: record.story.changedFiles, diffStat: changes?.diffStat ?? null }, config);
}
