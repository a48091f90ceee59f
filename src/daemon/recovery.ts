// Restart recovery: every run the journal says was in flight is adopted (agent alive, deadline
// ahead) or blocked fenced on its recorded run id (agent gone, or past its deadline → killed).
// Running tasks of this seat with no journal entry are only reported.
import { readFile, rm } from "node:fs/promises";
import { AdoptedAgent } from "../agents/adopted.js";
import type { Board, Lease } from "../board/index.js";
import { describeError } from "../errors/index.js";
import type { Logger } from "../log/logger.js";
import { sameProcessAlive } from "../process/liveness.js";
import { killGroup } from "../process/runner.js";
import { renderBlock } from "../result/template.js";
import type { Closer } from "../run/closer.js";
import { type Clock, sleepUnlessAborted } from "../time/clock.js";
import type { ActiveRun, ActiveRuns } from "./active-runs.js";
import type { RunLauncher } from "./launcher.js";

export interface RecoveryDeps {
  active: ActiveRuns;
  boards: Map<string, Board>;
  closer: Closer;
  launcher: RunLauncher;
  assignee: string;
  clock: Clock;
  log: Logger;
}

export interface RecoveryReport {
  adopted: string[];
  blocked: string[];
  orphans: { board: string; taskId: string }[];
}

function leaseOf(r: ActiveRun): Lease {
  return { board: r.board, taskId: r.task, runId: r.runId, lock: null, workspace: r.workspace, claimedAt: r.claimedAt, expiresAt: r.claimedAt + r.ttlSeconds * 1000, ttlSeconds: r.ttlSeconds };
}

export async function recover(d: RecoveryDeps): Promise<RecoveryReport> {
  const report: RecoveryReport = { adopted: [], blocked: [], orphans: [] };
  const known = new Set<string>();
  for (const r of d.active.list()) {
    known.add(`${r.board}/${r.task}`);
    const board = d.boards.get(r.board);
    if (!board) {
      d.log.error({ board: r.board, task_id: r.task }, "active run on a board this daemon no longer serves: left alone");
      continue;
    }
    const alive = sameProcessAlive(r.pid, r.pidStart);
    const ids = { board: r.board, task_id: r.task, run_id: r.runId, trace_id: r.traceId, pid: r.pid };
    if (alive && d.clock.now() < r.deadline) {
      d.log.warn(ids, "adopting a run that survived a bridge restart");
      d.launcher.reserve(r.board, r.task);
      d.launcher.launch({
        board,
        lease: leaseOf(r),
        detail: null,
        agent: new AdoptedAgent({ pid: r.pid, startTime: r.pidStart, resultFile: r.resultFile, runDir: r.runDir, name: r.agent, usesTools: Boolean(r.tools) }),
        toolsEndpoint: r.tools ?? undefined,
        traceId: r.traceId,
        deadline: r.deadline,
        adoptedRunDir: r.runDir,
      });
      report.adopted.push(r.task);
      continue;
    }
    if (alive) {
      killGroup(r.pgid, "SIGTERM");
      await sleepUnlessAborted(2000);
      if (sameProcessAlive(r.pid, r.pidStart)) killGroup(r.pgid, "SIGKILL");
    }
    const known_ = await readFile(r.resultFile, "utf8").then((t) => ` Its outcome file said: ${t.slice(0, 600)}`, () => " It left no outcome file.");
    const reason = renderBlock({
      cause: "environment",
      what_happened: `bridge restarted mid-run: run ${r.runId ?? "?"} (trace ${r.traceId}, agent ${r.agent}, pid ${r.pid}) ${alive ? "was still running past its deadline and was stopped" : "had lost its agent process"} when the bridge for seat ${d.assignee} came back.${known_}`,
      options: ["unblock to retry", "check the workspace and complete by hand if the work is done"],
      recommendation: "Look at the workspace; if the work is incomplete, unblock to retry.",
      next_action: `Inspect ${r.workspace}, then unblock or complete this task.`,
    });
    try {
      const res = await d.closer.close(leaseOf(r), { type: "block", reason, kind: "capability" }, r.traceId);
      d.log.warn({ ...ids, close: res.result }, "blocked a run interrupted by a bridge restart");
      report.blocked.push(r.task);
    } catch (err) {
      d.log.error({ ...ids, err: describeError(err) }, "could not journal the restart block");
    }
    d.active.remove(r.board, r.task);
    await rm(r.runDir, { recursive: true, force: true }).catch(() => undefined);
  }
  for (const board of d.boards.values()) {
    try {
      for (const t of await board.listRunning({ assignee: d.assignee })) {
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
