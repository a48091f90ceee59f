// Restart recovery: every run the journal says was in flight is adopted (agent alive, deadline ahead)
// or blocked, fenced on its recorded run id (agent gone, or past its deadline → stopped). The session
// journal records the cut ("crash"), so the next claim resumes the agent's session. Only what the
// bridge wrote is read or removed (active-runs.ts checks every path). Running tasks of this seat
// with no journal entry are only reported.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { RUN_CLI_HOME, SAVED_TRANSCRIPT, closeHome } from "../agents/cli-home.js";
import { AdoptedAgent } from "../agents/adopted.js";
import { type AgentKind, kindNamed, kindOf } from "../agents/kinds.js";
import type { AgentAdapter } from "../agents/port.js";
import type { Board } from "../board/port.js";
import type { Config } from "../config/schema.js";
import { timingFor } from "../config/timing.js";
import type { SessionJournal } from "../continuity/journal.js";
import { TaskSession } from "../continuity/session.js";
import { describeError } from "../errors/index.js";
import { leaseOf } from "../lease/lease.js";
import type { Logger } from "../log/logger.js";
import type { Closer } from "../outbox/closer.js";
import { sameProcessAlive } from "../process/liveness.js";
import { terminateGroup, killJailMarked } from "../process/terminate.js";
import { renderBlock } from "../result/template.js";
import { readSmallFile } from "../state/read.js";
import type { Clock } from "../time/clock.js";
import type { ActiveRuns } from "./active-runs.js";
import type { RunLauncher } from "./launcher.js";
import { LeaseClock } from "../lease/clock.js";

export interface RecoveryDeps {
  active: ActiveRuns;
  boards: Map<string, Board>;
  closer: Closer;
  launcher: RunLauncher;
  journal: SessionJournal;
  config: Config;
  agent: AgentAdapter;
  /** The kinds a journaled run may name (each says how it is stopped politely). */
  kinds?: readonly AgentKind[] | undefined;
  clock: Clock;
  log: Logger;
}

export interface RecoveryReport {
  adopted: string[];
  blocked: string[];
  orphans: { board: string; taskId: string }[];
}

export async function recover(d: RecoveryDeps): Promise<RecoveryReport> {
  const report: RecoveryReport = { adopted: [], blocked: [], orphans: [] };
  const known = new Set<string>();
  const c = d.config;
  for (const r of await d.active.list()) {
    known.add(`${r.board}/${r.task}`);
    const board = d.boards.get(r.board);
    if (!board) {
      d.log.error({ board: r.board, task_id: r.task }, "active run on a board this daemon no longer serves: left alone");
      continue;
    }
    const alive = sameProcessAlive(r.pid, r.pidStart);
    const ids = { board: r.board, task_id: r.task, run_id: r.runId, trace_id: r.traceId, agent_pid: r.pid };
    if (alive && d.clock.now() < r.deadline) {
      d.log.warn(ids, "adopting a run that survived a bridge restart");
      d.launcher.reserve(r.board, r.task);
      d.launcher.launch({
        board,
        lease: leaseOf({ ...r, taskId: r.task }),
        detail: null,
        contextText: "",
        agent: new AdoptedAgent(
          {
            pid: r.pid,
            startTime: r.pidStart,
            resultFile: r.resultFile,
            outputDir: r.outputDir ?? r.runDir,
            name: r.agent,
            usesTools: Boolean(r.tools),
            // The kind that started it (an agent of a kind this seat no longer runs: the seat's own kind's).
            politeSignal: (kindNamed(r.agent, d.kinds) ?? kindOf(c, d.kinds)).stopSignal,
          },
          { killGraceMs: c.agent.killGraceSeconds * 1000, stallMs: c.agent.stallSeconds * 1000 },
        ),
        traceId: r.traceId,
        // The journal keeps the deadline the run last had (renewals moved it).
        leaseClock: new LeaseClock(timingFor(c, r.ttlSeconds), r.deadline),
        adopted: { runDir: r.runDir, workspace: r.localWorkspace, tools: r.tools ?? null },
      });
      report.adopted.push(r.task);
      continue;
    }
    if (alive) await terminateGroup(r.pgid, { graceMs: c.agent.killGraceSeconds * 1000, gone: () => !sameProcessAlive(r.pid, r.pidStart) });
    // What is left of its jail goes too: a namespace init whose outer bwrap died before it armed
    // --die-with-parent (the bridge was killed while the jail was being set up) runs on under init.
    const leftovers = killJailMarked(r.runDir);
    if (leftovers > 0) d.log.warn({ ...ids, processes: leftovers }, "killed what was left of the run's jail");
    const outcome = await readSmallFile(r.resultFile, 64 * 1024);
    const left = "text" in outcome && outcome.text !== null ? ` Its outcome file said: ${outcome.text.slice(0, 600)}` : " It left no outcome file.";
    const rec = await d.journal.get(r.board, r.task);
    const session = rec?.session ? ` The agent's session ${rec.session} is kept: unblock to continue; the next run of this seat resumes it.` : "";
    const reason = renderBlock({
      cause: "environment",
      what_happened: `bridge restarted mid-run: run ${r.runId ?? "?"} (trace ${r.traceId}, agent ${r.agent}, pid ${r.pid}) ${alive ? "was still running past its deadline and was stopped" : "had lost its agent process"} when the bridge for seat ${c.assignee} came back.${left}${session}`,
      options: ["unblock to continue where it stopped", "check the workspace and complete by hand if the work is done"],
      recommendation: "Unblock to continue: the workspace keeps the agent's changes.",
      next_action: `Inspect ${r.localWorkspace}, then unblock or complete this task.`,
    });
    try {
      const res = await d.closer.close(d.closer.fenced(leaseOf({ ...r, taskId: r.task })), { type: "block", reason, kind: "capability" }, r.traceId);
      d.log.warn({ ...ids, close: res.result }, "blocked a run interrupted by a bridge restart");
      report.blocked.push(r.task);
      await TaskSession.crashed(d.journal, r.board, r.task, { runId: r.runId, traceId: r.traceId, at: new Date(d.clock.now()).toISOString() });
    } catch (err) {
      d.log.error({ ...ids, err: describeError(err) }, "could not journal the restart block");
    }
    // The dead run's CLI home held its session's transcript (and maybe a refreshed login): kept before its dir goes.
    const kind = kindNamed(r.agent, d.kinds);
    if (kind?.cliHome && kind.home && rec?.session) {
      const kept = await closeHome({
        layout: kind.cliHome,
        login: kind.home(c.agent, c.stateDir),
        home: join(r.runDir, RUN_CLI_HOME),
        sessions: [rec.session],
        save: join(d.journal.taskDir(r.board, r.task), SAVED_TRANSCRIPT),
      });
      if (kept.problem) d.log.warn({ ...ids, err: kept.problem }, "the interrupted run's CLI home was not fully kept");
    }
    d.active.remove(r.board, r.task);
    await rm(r.runDir, { recursive: true, force: true }).catch(() => undefined);
    if (r.outputDir) await rm(r.outputDir, { recursive: true, force: true }).catch(() => undefined);
  }
  for (const board of d.boards.values()) {
    try {
      for (const t of await board.listRunning({ assignee: c.assignee })) {
        if (known.has(`${board.slug}/${t.id}`)) continue;
        report.orphans.push({ board: board.slug, taskId: t.id });
        d.log.warn({ board: board.slug, task_id: t.id }, "task running for this seat with no journal entry: reported, not touched");
      }
    } catch (err) {
      d.log.warn({ board: board.slug, err: describeError(err) }, "could not list running tasks at start");
    }
  }
  return report;
}
