// Hermes's `active_pr` respawn guard, read off a task the bridge has just claimed. Upstream
// (NousResearch/hermes-agent, commit 00030df13ffeaadcadf9d79935bac522e5552c88) applies it in the
// dispatcher only — hermes_cli/kanban_db_dispatch.py `_dispatch_lane_task` checks it after the lane's
// profile check, so a bridge lane (no Hermes profile) is skipped before the guard and a `claim` is never
// refused by it. The bridge applies the same rule to its own runs, where 0.21.4+ names the way past it
// (`authorize-existing-pr`): a GitHub PR URL in a comment of the last 24 hours means an earlier run
// already opened a PR, and a fresh run would open a duplicate. The guard lifts (check_respawn_guard)
// for a hand-off after the newest such comment, or for an operator's grant that names every PR URL of
// the window and that no run other than this one has spent (kanban_pr_authorization.py:
// active_authorization, permits_active_pr_bypass, record_consumed).
import type { TaskDetail } from "./port.js";

/** `_RESPAWN_GUARD_PR_WINDOW` */
export const PR_GUARD_WINDOW_S = 86_400;
/** `_RESPAWN_GUARD_PR_URL_RE` */
const PR_URL = /https?:\/\/github\.com\/[^/\s]+\/[^/\s]+\/pull\/\d+/gi;

export interface ActivePr {
  /** The PR URL of the newest comment that holds one. */
  prUrl: string;
  /** Every PR URL the window's comments name (a grant must name all of them). */
  urls: string[];
  /** OWNER/REPO of `prUrl`. */
  repo: string;
}

const urlsOf = (text: string) => [...text.matchAll(PR_URL)].map((m) => m[0]);

/**
 * The guard's hold on this run of the task (`runId`, the run the claim opened), or null when it does
 * not hold: no PR URL in the window's comments, a hand-off after the newest one, or a live grant.
 */
export function activePrHold(detail: TaskDetail, nowS: number, runId: number | null): ActivePr | null {
  const cutoff = nowS - PR_GUARD_WINDOW_S;
  const recent = detail.comments.filter((c) => c.createdAt >= cutoff);
  const newest = [...recent].sort((a, b) => b.createdAt - a.createdAt).find((c) => urlsOf(c.body).length > 0);
  if (!newest) return null;
  // Strictly after: a same-second tie stays guarded (fail closed).
  if (detail.events.some((e) => e.handoff === true && e.createdAt > newest.createdAt)) return null;
  const urls = [...new Set(recent.flatMap((c) => urlsOf(c.body)))];
  if (grantCovers(detail, runId, urls)) return null;
  const prUrl = urlsOf(newest.body)[0] ?? "";
  const repo = /github\.com\/([^/\s]+\/[^/\s]+)\/pull\//i.exec(prUrl)?.[1] ?? "";
  return { prUrl, urls, repo };
}

/** The newest grant is for this task, names exactly the window's PR URLs, and only this run is above its floor. */
function grantCovers(detail: TaskDetail, runId: number | null, urls: string[]): boolean {
  const grant = [...detail.events].reverse().find((e) => e.kind === "existing_pr_authorized")?.prGrant;
  if (!grant || grant.taskId !== detail.task.id || grant.runIdFloor === null || grant.prUrl === null) return false;
  const floor = grant.runIdFloor;
  if (detail.runs.some((r) => r.id > floor && r.id !== runId)) return false;
  return urls.length === 1 && urls[0] === grant.prUrl;
}
