// HERMES_EMULATOR_COMPAT=named-claims: a Hermes line with named claims — what an external worker meets on
// the upstream line after 0.21.3 (0.21.3 itself has none of it: no `--claimer`, no `heartbeat --ttl`, no
// `--expected-status`, no `complete --force`; the 0.21 mode models 0.21.3). Modelled from public sources
// only, re-checked 2026-12-01 in the public-code index:
// - NousResearch/hermes-agent hermes_cli/kanban_claims.py (commit 0f9c44d8…, the decomposition line after
//   0.21.3): claim_task(claimer=…) records the claimer as claim_lock; heartbeat_claim(ttl_seconds,
//   claimer, expected_run_id) renews only the holder's claim; release_stale_claims reserves and reclaims
//   an expired claim with no worker process in one sweep.
// - the named-claim tests (index file 70374298756, its repository not named by the index: "Named claims:
//   an external harness … claims a card as <kind>:<id>, renews it with heartbeat, and is the only caller
//   that can close it"): test_claim_refuses_a_malformed_claimer,
//   test_claim_refuses_a_claimer_that_names_this_host, test_heartbeat_renews_a_named_claim,
//   test_heartbeat_never_shortens_a_claim, test_heartbeat_by_a_non_holder_fails_and_changes_nothing,
//   test_heartbeat_ttl_without_a_claimer_is_refused, test_named_claim_fences_completion_by_anyone_else,
//   test_force_still_overrides_a_named_claim, test_expired_named_claim_no_longer_fences.
// - the block/schedule fence tests (#112889; index files 70153056623, 70547862958):
//   test_named_claim_fences_block_and_schedule — "a refused verb leaves no reason comment on a card
//   someone else holds".
// - the CLI exit-status regression tests (index file 57392283297):
//   test_claim_claimer_replay_is_idempotent_and_foreign_safe ("the CLI must recover a lost
//   acknowledgement without accepting another actor"),
//   test_complete_expected_status_mismatch_exits_nonzero_and_preserves_task,
//   test_comment_expected_status_mismatch_exits_nonzero_and_writes_nothing,
//   test_block_expected_status_applies_guard_to_every_bulk_id,
//   test_unblock_expected_block_kind_mismatch_exits_nonzero (and …_invalid_… / …_dependency_… : exit 2),
//   test_guarded_block_and_unblock_forward_explicit_reason_author (`--author` on block/unblock).
// - #111446: every automatic reclaim counts as a failure; at the failure limit the task gives up
//   (`gave_up`, blocked). #113627 (open): show --json names the claim (claim_lock, claim_expires,
//   current_run_id, last_heartbeat_at) and runs[].closed_by.
import { hostname } from "node:os";
import type { OptSpec, ParserSpec, Values } from "../argparse.js";
import { EmuExit, namedClaims } from "../io.js";
import { type TaskRow, workerRunId } from "../model.js";
import type { Verb, VerbCtx } from "./types.js";

/** kanban_db.DEFAULT_CLAIM_TTL_SECONDS */
export const DEFAULT_CLAIM_TTL = 900;

/** `<kind>:<id>`: a lowercase kind, an id without spaces (upstream's malformed cases: "claude", "Claude:abc", "claude:", ":abc", "claude:a b"). */
const CLAIMER_RE = /^[a-z][a-z0-9_-]*:\S+$/;

const STATUSES = ["archived", "blocked", "done", "ready", "review", "running", "scheduled", "todo", "triage"];

const CLAIMER: OptSpec = {
  flag: "--claimer",
  dest: "claimer",
  kind: "value",
  help: "Named claimer <kind>:<id> (default: $HERMES_KANBAN_CLAIMER, else this process's host:pid)",
};
const EXPECTED_STATUS: OptSpec = {
  flag: "--expected-status",
  dest: "expected_status",
  kind: "value",
  choices: STATUSES,
  help: "Compare-and-set guard: refuse (exit 1, nothing written) unless the task is in this status",
};
const FORCE: OptSpec = { flag: "--force", dest: "force", kind: "flag", help: "Override the live-claim guard (close a card another actor holds)" };
const AUTHOR: OptSpec = { flag: "--author", dest: "author", kind: "value", help: "Author of the reason comment (default: $HERMES_PROFILE or 'user')" };

/** The options each verb gains upstream. */
const EXTRA: Record<string, OptSpec[]> = {
  claim: [CLAIMER],
  heartbeat: [
    CLAIMER,
    { flag: "--ttl", dest: "ttl", kind: "value", type: "int", help: "Renew the named claim to now + TTL seconds (never shortens it; requires --claimer)" },
  ],
  complete: [CLAIMER, FORCE, EXPECTED_STATUS],
  block: [CLAIMER, FORCE, EXPECTED_STATUS, AUTHOR],
  schedule: [CLAIMER, FORCE],
  comment: [EXPECTED_STATUS],
  unblock: [
    {
      flag: "--expected-block-kind",
      dest: "expected_block_kind",
      kind: "value",
      choices: ["capability", "needs_input", "transient"],
      help: "Compare-and-set guard: refuse unless the task is blocked with this kind",
    },
    AUTHOR,
  ],
  dispatch: [
    {
      flag: "--failure-limit",
      dest: "failure_limit",
      kind: "value",
      type: "int",
      help: "Auto-block (gave_up) a task after this many consecutive non-success attempts (spawn_failed, timed_out, crashed, or reclaimed; default: 2)",
    },
  ],
};

/** The verbs whose upstream help differs from 0.20.0's recording (printed from the spec). */
export const NAMED_CLAIMS_HELP = new Set(Object.keys(EXTRA));

/** The verb table upstream: the same verbs with the options upstream added. */
export function namedClaimsTable(table: Record<string, Verb>, env: NodeJS.ProcessEnv): Record<string, Verb> {
  if (!namedClaims(env)) return table;
  const out: Record<string, Verb> = { ...table };
  for (const [name, extra] of Object.entries(EXTRA)) {
    const v = table[name];
    if (v) out[name] = { ...v, spec: withOptions(v.spec, extra) };
  }
  return out;
}

export function withOptions(spec: ParserSpec, extra: readonly OptSpec[]): ParserSpec {
  return { ...spec, options: [...spec.options, ...extra.filter((e) => !spec.options.some((o) => o.flag === e.flag))] };
}

const hostPrefix = () => `${hostname()}:`;

/** A named claim (not a host-local `host:pid` worker lock). */
export function isNamed(lock: string | null): lock is string {
  return lock !== null && !lock.startsWith(hostPrefix());
}

/** The claimer a call speaks for: --claimer, else $HERMES_KANBAN_CLAIMER; validated (exit 2). */
export function claimerOf(ctx: VerbCtx, v: Values): string | null {
  const given = typeof v.claimer === "string" ? v.claimer : (ctx.env.HERMES_KANBAN_CLAIMER ?? null);
  if (given === null || given === "") return null;
  if (!CLAIMER_RE.test(given))
    throw new EmuExit(2, "", `kanban: invalid --claimer '${given}': expected <kind>:<id> (a lowercase kind, an id without spaces)\n`);
  if (given.startsWith(hostPrefix()))
    throw new EmuExit(2, "", `kanban: --claimer '${given}' names this host: a named claim must not look like a host-local worker lock (host:pid)\n`);
  return given;
}

/** The caller's run id is the task's current run (the worker fence, HERMES_KANBAN_TASK + HERMES_KANBAN_RUN_ID). */
function ownsRun(env: NodeJS.ProcessEnv, t: TaskRow): boolean {
  const run = workerRunId(env, t.id);
  return run !== null && t.current_run_id === run;
}

/**
 * The live-claim fence (PR #112268 for complete, #112889 for block): a running card under a live named
 * claim closes only for its holder (`--claimer`, or the run id) or with `--force`. An expired claim no
 * longer fences. Null when the call may proceed.
 */
export function liveClaimRefusal(ctx: VerbCtx, t: TaskRow, verb: string, v: Values): string | null {
  if (!namedClaims(ctx.env) || v.force === true || t.status !== "running" || !isNamed(t.claim_lock)) return null;
  if (t.claim_expires === null || t.claim_expires <= ctx.now) return null;
  if (claimerOf(ctx, v) === t.claim_lock || ownsRun(ctx.env, t)) return null;
  return `cannot ${verb} ${t.id}: live claim held by another actor (claimed by ${t.claim_lock}); pass --claimer ${t.claim_lock} or --force`;
}

/** `--expected-status`: a mismatch refuses with nothing written. Null when the call may proceed. */
export function expectedStatusRefusal(t: TaskRow, verb: string, v: Values): string | null {
  const want = typeof v.expected_status === "string" ? v.expected_status : null;
  if (want === null || t.status === want) return null;
  return `kanban: cannot ${verb} ${t.id}: expected status ${want}, found ${t.status}`;
}

/** Who acted: --claimer, the worker's lock, $HERMES_KANBAN_CLAIMER, else the process's host:pid (resolve_actor). */
export function actorOf(ctx: VerbCtx, v: Values): string {
  return claimerOf(ctx, v) ?? ctx.env.HERMES_KANBAN_CLAIM_LOCK ?? `${hostname()}:${ctx.env.HERMES_EMULATOR_CALL_PID ?? process.pid}`;
}

/** show --json's task object upstream: the claim, named (#113627). */
export function namedClaimTaskFields(env: NodeJS.ProcessEnv, t: TaskRow): Record<string, unknown> {
  if (!namedClaims(env)) return {};
  return { claim_lock: t.claim_lock, claim_expires: t.claim_expires, current_run_id: t.current_run_id, last_heartbeat_at: t.last_heartbeat_at };
}
