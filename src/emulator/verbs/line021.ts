// What Hermes 0.21.3 adds to the verbs 0.20.0 has (HERMES_EMULATOR_COMPAT=0.21), from its source
// (../shared/tools/hermes-0.21: hermes_cli/kanban.py, kanban_db.py, kanban_pr_acceptance*.py) and
// checked against its recordings (test/fixtures/hermes-021/transcripts):
// - the worker-scope guard (kanban.py _worker_run_id_for): a process whose HERMES_KANBAN_TASK names
//   another task may not heartbeat, complete, block, schedule or hand over this one;
// - completion contracts (create --completion-contract; complete_task → prepare/record_acceptance): a
//   contract other than local-only / evidence-required needs GitHub PR evidence, read with `gh` as the
//   assignee's profile. The emulator runs no `gh`: a contract it would have to check on GitHub ends as
//   the real CLI ends on a machine without `gh` (classification `infra`); a missing or mismatched
//   `published_pr`, or an assignee without a profile, ends as the real CLI ends anywhere.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { EmuExit, v021 } from "../io.js";
import { type TaskRow, addEvent } from "../model.js";
import { pyStr } from "../pyrepr.js";
import type { VerbCtx } from "./types.js";

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const PR = /^https:\/\/github\.com\/([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)\/pull\/([1-9][0-9]*)$/;
const EVIDENCE_REQUIRED = "evidence-required";
const RECOVERY =
  "Fix required failures, rerun infrastructure checks or wait, then retry completion. Use kanban_block if human input is needed; receipts remain on the task event log.";

/** `_worker_run_id_for`: why a mutation of a task other than the worker's own is refused, or null. */
export function scopeRefusal(env: NodeJS.ProcessEnv, taskId: string): string | null {
  const scoped = env.HERMES_KANBAN_TASK;
  return v021(env) && scoped && scoped !== taskId ? `kanban: worker is scoped to task ${scoped}; refusing to mutate ${taskId}` : null;
}

/** The same refusal as an exit (1) before the verb writes anything. */
export function scopeGuard(ctx: Pick<VerbCtx, "env">, taskId: string): void {
  const refused = scopeRefusal(ctx.env, taskId);
  if (refused) throw new EmuExit(1, "", `${refused}\n`);
}

/** kanban_pr_acceptance.validate_contract (create): the stored contract, or exit 1 naming the forms. */
export function validateContract(value: string | null): string {
  if (value === null || value === "local-only") return "local-only";
  if (value === EVIDENCE_REQUIRED || REPO.test(value) || PR.test(value)) return value;
  throw new EmuExit(1, "", "kanban: completion_contract must be local-only, evidence-required, OWNER/REPO, or an exact GitHub PR URL\n");
}

type Receipt = Record<string, unknown> & { ok: boolean; classification: string };

/**
 * prepare_acceptance + record_acceptance, inside complete's transaction: null when the task's contract
 * needs no publication evidence (or outside the 0.21 mode); otherwise whether the complete may go on.
 * A refused acceptance is on the task's events (`pr_acceptance`) and in its last_failure_error.
 */
export function acceptCompletion(ctx: VerbCtx, t: TaskRow, metadata: Record<string, unknown> | null, expectedRun: number | null): boolean | null {
  let contract = t.completion_contract;
  if (!v021(ctx.env) || !contract || contract === "local-only" || contract === EVIDENCE_REQUIRED) return null;
  if (!["running", "ready", "blocked", "review"].includes(t.status) || (expectedRun !== null && t.current_run_id !== expectedRun)) return false;
  const published = typeof metadata?.published_pr === "string" ? metadata.published_pr : null;
  const bound = published !== null ? PR.exec(published) : null;
  // Publication binds once: a repository contract becomes the PR that was published for it.
  if (bound && published !== null && contract === bound[1]) {
    ctx.db.prepare("UPDATE tasks SET completion_contract = ? WHERE id = ?").run(published, t.id);
    contract = published;
  }
  const receipt = collect(ctx, contract, published, t.assignee);
  addEvent(ctx.db, t.id, "pr_acceptance", receipt, ctx.now, t.current_run_id);
  if (!receipt.ok)
    ctx.db
      .prepare("UPDATE tasks SET last_failure_error = ? WHERE id = ?")
      .run(`PR acceptance ${receipt.classification}: ${String(receipt.detail ?? "")} ${RECOVERY}`, t.id);
  return receipt.ok;
}

/** collect_acceptance, as far as it goes without `gh`. */
function collect(ctx: VerbCtx, contract: string, published: string | null, assignee: string | null): Receipt {
  const receipt: Receipt = { ok: false, classification: "missing", head_sha: null, pr_url: published, checks: [], recovery: RECOVERY };
  const name = assignee?.trim().toLowerCase() ?? null;
  if (name !== null && name !== "default" && !existsSync(join(ctx.loc.root, "profiles", name))) {
    const who = `assignee profile ${pyStr(assignee ?? "")}`;
    return Object.assign(receipt, {
      classification: "auth",
      detail: `GitHub refused the acceptance read (${who} cannot be resolved) as ${who}'s gh login; fix that profile's GitHub credentials/access to the repository, then retry completion.`,
    });
  }
  const declared = PR.exec(contract);
  const url = declared ? contract : published;
  const match = PR.exec(url ?? "");
  if (!match || (!declared && match[1] !== contract) || (declared && published && published !== contract))
    return Object.assign(receipt, { detail: "Supply metadata.published_pr matching the persisted completion contract." });
  receipt.pr_url = url;
  return Object.assign(receipt, {
    classification: "infra",
    detail: "GitHub acceptance evidence unavailable or incomplete; check gh authentication/API access and retry.",
  });
}
