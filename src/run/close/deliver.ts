// The delivering phase: a complete's deliverables attached to its task (deliverables.ts: staged where the
// CLI can read them, or uploaded), then the workspace records its state (checkout: commit + push) — unless
// the run left its repository set to run code, which stays for a person to review.
import { describeError } from "../../errors/index.js";
import type { Decision } from "../../result/decision.js";
import { type PreparedWorkspace, WorkspaceRefused } from "../../workspace/port.js";
import { blockFor } from "../blocks/table.js";
import type { RunStart, SeatRun } from "../context.js";
import { preserveDeliverables, proseDeliverables, stagingArea } from "./deliverables.js";
import type { RunRecord } from "../record.js";

const REVIEW_FIRST = "the work was not committed or pushed: the run left its repository set to run code, and its changes stay in the workspace for review";

/** Deliverables of a complete are attached to the task; the workspace records its state (checkout: commit + push). */
export async function deliverRun(
  decision: Decision,
  ws: PreparedWorkspace,
  r: { seat: SeatRun; start: RunStart; record: RunRecord; privateDir: string },
): Promise<Decision> {
  const { seat, start, record, privateDir } = r;
  const lease = record.lease;
  let d: Decision = decision;
  if (d.type === "complete") {
    const prose = proseDeliverables(d.summary, ws, d.result.artifacts);
    d = { ...d, summary: prose.summary, result: { ...d.result, artifacts: [...d.result.artifacts, ...prose.added] } };
    const delivered = await preserveDeliverables(d.result, ws, {
      attach: (f, s) => start.held.fenced.attach(f, s),
      upload: seat.upload,
      staging: stagingArea(ws, privateDir, { cliOnThisHost: seat.cliOnThisHost, upload: seat.upload !== undefined }),
      taskId: lease.taskId,
      signal: seat.shutdown,
      budget: record.tools,
    });
    if (!delivered.ok) d = blockFor("deliverable", delivered.file, delivered.why);
    else d = { ...d, result: { ...d.result, artifacts: delivered.artifacts } };
  }
  // A repository set to run code is left for a person to review: nothing of it is committed or pushed.
  if (record.facts.repositoryFound) record.story.workspaceNote = REVIEW_FIRST;
  else
    try {
      const kind = d.type === "complete" ? "complete" : "cut";
      const fin = await ws.finish({
        kind,
        message: `${kind === "complete" ? "" : "WIP: "}${lease.taskId} run ${lease.runId ?? "?"} (${seat.settings.seat})`,
        signal: seat.shutdown,
      });
      record.story.workspaceNote = fin.note;
      if (d.type === "complete" && fin.artifacts.length) d = { ...d, result: { ...d.result, artifacts: [...d.result.artifacts, ...fin.artifacts] } };
    } catch (err) {
      record.story.workspaceNote = `could not record the work: ${describeError(err)}`;
      if (d.type === "complete") d = blockFor("workspace_finish", describeError(err), err instanceof WorkspaceRefused ? err.setting : "workspace");
    }
  return d;
}
