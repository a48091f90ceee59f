// The sources of `hermes-bridge stats`'s figures, for its --help (main.ts loads this, not the command).

/** Where every figure comes from (`stats --help`; docs/stats.md says the same at length). */
export const STATS_SOURCES = `
Where each figure comes from (every seat of the boards: \`list --archived\`, then \`show --json\` of each task):
  runs          a run of the task a bridge claimed (its close record, a bridge's claim lock, or its seat's outbox)
  tries/retries runs + metadata.bridge.retries of a complete, "retried N (causes)" of any other close's
                usage: line (agent.retries: crash, api, connection)
  done          the run's outcome completed, or review_requested (a review hand-off: the gate passed)
  blocked       outcome blocked; the cause is the first line of the bridge's templated reason (5 causes)
  lost          the seat's outbox recorded lease_lost (or the bridge's comment "run N lost its lease"): its
                claim ran out while it could not reach the board and the dispatcher released it (a stale
                lock), or another took the task; or a run another actor closed with no close of the bridge's
  back          given back: a bridge's reclaim or schedule (limit: seat.onLimit, api: its API unreachable,
                stop: shutdown.inFlight: handback)
  dead          dead letters: a close that never landed — the seat's outbox says failed/dead, or the run
                ended by the claim's expiry with no close of the bridge's and no word of its seat
  reopen        review_reopened, changes_requested and reopened events after the run's close
  closed        done + blocked + lost + dead (a hand-back is no close: the task goes on)
  success       done ÷ closed; failure: (blocked + lost + dead) ÷ closed; dead ltr: dead ÷ closed
  pickup        the run's claimed event − the last ready-making event before it (created ready, promoted,
                unblocked, reclaimed, assigned, review_reopened)
  run           metadata.bridge.duration_ms, else the run's ended_at − started_at
  to close      from the first claim after the task's previous done/blocked to this done/blocked
  p50/p95/p99   nearest rank over the window's runs
  turns, tokens, cost   metadata.bridge (turns, tokens, cost_usd) or the close's usage: line
  per done      the window's cost (every run's, failed ones' too) ÷ done
  unmeasured    runs whose agent reported no usage, or tokens but no cost: apart, never free
  !             a service level crossed (serviceLevels: failureRate, deadLetterRate, runTimeP95Seconds,
                judged from minRuns closed runs)
Runs of other workers and runs whose record was edited after its close are counted apart.`;
