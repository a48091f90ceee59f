// Restart recovery: every run the journal says was in flight is adopted (agent alive, deadline ahead)
// or continued (continue.ts: its agent died with the bridge, ran past its deadline and was stopped, or
// was stopped politely with its claim kept for this restart) — in the same run where the claim is still
// this run's, else handed back or left to whoever claims it next; never blocked for a person. The
// session journal records the cut, so the next agent resumes its session. Only what the bridge wrote is
// read or removed (active-runs.ts checks every path). Running tasks of this seat with no journal entry
// are only reported.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { RUN_CLI_HOME, SAVED_TRANSCRIPT, closeHome } from "../agents/cli-home.js";
import { AdoptedAgent } from "../agents/adopted.js";
import { type AgentKind, kindNamed, kindOf } from "../agents/kinds.js";
import type { AgentAdapter } from "../agents/port.js";
import type { Board } from "../board/port.js";
import type { Config } from "../config/schema.js";
import type { SessionJournal } from "../continuity/journal.js";
import { TaskSession } from "../continuity/session.js";
import { describeError } from "../errors/index.js";
import type { Logger } from "../log/logger.js";
import type { Closer } from "../outbox/closer.js";
import { sameProcessAlive } from "../process/liveness.js";
import { terminateGroup, killJailMarked } from "../process/terminate.js";
import type { Clock } from "../time/clock.js";
import type { ActiveRuns } from "./active-runs.js";
import { continueInterrupted } from "./continue.js";
import type { SeatSettings } from "./seat-settings.js";
import type { RunLauncher } from "./launcher.js";
import type { SeatLeases } from "./leases.js";

export interface RecoveryDeps {
  active: ActiveRuns;
  boards: Map<string, Board>;
  closer: Closer;
  launcher: RunLauncher;
  /** The seat's leases (leases.ts): a claim taken before the restart is taken up there. */
  leases: SeatLeases;
  journal: SessionJournal;
  config: Config;
  seatSettings: SeatSettings;
  agent: AgentAdapter;
  /** The kinds a journaled run may name (each says how it is stopped politely). */
  kinds?: readonly AgentKind[] | undefined;
  clock: Clock;
  log: Logger;
}

export interface RecoveryReport {
  adopted: string[];
  /** Continued in the same run, or handed back for a fresh claim (continue.ts). */
  continued: string[];
  orphans: { board: string; taskId: string }[];
}

/** How long the session of a completed task is kept for a reopen (continuity/journal.ts `prune`). */
const DONE_SESSION_DAYS = 30;

export async function recover(d: RecoveryDeps): Promise<RecoveryReport> {
  const report: RecoveryReport = { adopted: [], continued: [], orphans: [] };
  const pruned = await d.journal.prune(d.clock.now(), DONE_SESSION_DAYS * 86_400_000).catch(() => 0);
  if (pruned) d.log.info({ pruned }, `sessions of tasks completed over ${DONE_SESSION_DAYS} days ago dropped`);
  const known = new Set<string>();
  const c = d.config;
  for (const r of await d.active.list()) {
    known.add(`${r.board}/${r.task}`);
    const board = d.boards.get(r.board);
    if (!board) {
      d.log.error({ board: r.board, task_id: r.task }, "active run on a board this daemon no longer serves: left alone");
      continue;
    }
    // An agent that ran inside the bridge died with it (the pid named is the old bridge's).
    const alive = !r.inProcess && sameProcessAlive(r.pid, r.pidStart);
    const ids = { board: r.board, task_id: r.task, run_id: r.runId, trace_id: r.traceId, agent_pid: r.pid };
    if (alive && d.clock.now() < r.deadline) {
      d.log.warn(ids, "adopting a run that survived a bridge restart");
      d.launcher.reserve(r.board, r.task);
      d.launcher.launch({
        board,
        // The journal keeps the deadline the run last had (renewals moved it).
        held: d.leases.resume(board, r, { read: { contextText: "" } }),
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
          { killGraceMs: d.seatSettings.killGraceMs, stallMs: d.seatSettings.stallMs },
        ),
        traceId: r.traceId,
        adopted: { runDir: r.runDir, workspace: r.localWorkspace, tools: r.tools ?? null },
      });
      report.adopted.push(r.task);
      continue;
    }
    if (alive) await terminateGroup(r.pgid, { graceMs: d.seatSettings.killGraceMs, gone: () => !sameProcessAlive(r.pid, r.pidStart) });
    // What is left of its jail goes too: a namespace init whose outer bwrap died before it armed
    // --die-with-parent (the bridge was killed while the jail was being set up) runs on under init.
    const leftovers = killJailMarked(r.runDir);
    if (leftovers > 0) d.log.warn({ ...ids, processes: leftovers }, "killed what was left of the run's jail");
    const rec = await d.journal.get(r.board, r.task);
    // A crash is the session's cut (a kept claim already recorded its own: shutdown), so the next run resumes it.
    if (!r.kept)
      await TaskSession.crashed(d.journal, r.board, r.task, { runId: r.runId, traceId: r.traceId, at: new Date(d.clock.now()).toISOString() }).catch(
        (err: unknown) => d.log.warn({ ...ids, err: describeError(err) }, "could not journal the interrupted run's cut"),
      );
    // The dead run's CLI home held its session's transcript (and maybe a refreshed login): kept before its dir goes.
    const kind = kindNamed(r.agent, d.kinds);
    if (kind?.cliHome && kind.home && rec?.session) {
      const kept = await closeHome({
        layout: kind.cliHome,
        login: kind.home(c.agent, c.stateDir),
        home: join(r.runDir, RUN_CLI_HOME),
        sessions: [rec.session],
        save: join(d.journal.taskDir(r.board, r.task), SAVED_TRANSCRIPT),
        // The dead run's login is a claim like a live one's: tried first, never written back unchecked.
        verify: (login) => (d.agent.name === r.agent && d.agent.verifyLogin ? d.agent.verifyLogin(login) : Promise.resolve(false)),
      });
      if (kept.problem) d.log.warn({ ...ids, err: kept.problem }, "the interrupted run's CLI home was not fully kept");
    }
    d.active.remove(r.board, r.task);
    await rm(r.runDir, { recursive: true, force: true }).catch(() => undefined);
    if (r.outputDir) await rm(r.outputDir, { recursive: true, force: true }).catch(() => undefined);
    const why = r.kept ? "a planned restart" : alive ? "a restart (its agent ran past the claim's deadline)" : "a crash (its agent died with the bridge)";
    const how = await continueInterrupted(d, board, r, why);
    if (how === "same_run" || how === "handed_back") report.continued.push(r.task);
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
