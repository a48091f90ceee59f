// The state dir's layout: every file and folder the bridge keeps there, named once. Every module that
// reads or writes state takes its path from here (test/unit/state-layout.test.ts checks that no other
// file spells one); what lies inside an entry (a session per task, an active run per task) is named by
// the entry's owner.
import { join } from "node:path";

export const STATE_LAYOUT = {
  /** The status snapshot, rewritten every 5 s (status, fleet). */
  status: "status.json",
  /** Why the seat's last `run` did not start (its start check, its config), until a start succeeds (fleet). */
  startFailure: "start-failure.json",
  /** The seat's own settings as `run` last started with them (boards, hermes, http, webhook): what `status`, `outbox`, `usage` and `fleet` read when given only the state dir. */
  settings: "settings.json",
  /** The seat's pause (usage limit, auth). */
  seat: "seat.json",
  /** Tasks this seat parked at its usage limit (seat.onLimit: wait). */
  parked: "parked.json",
  /** The seat's usage ledger, one line per closed run. */
  usage: "usage.jsonl",
  /** The close journal. */
  outbox: "outbox.jsonl",
  /** The alert sender's journal. */
  alerts: "alerts.jsonl",
  /** One file per agent running now (restart recovery). */
  active: "active",
  /** The agents' run dirs (result, session, inbox files). */
  runs: "runs",
  /** Each run's private dir (staged deliverables, the git view; never shown to the agent). */
  private: "private",
  /** The session journal, per board and task. */
  sessions: "sessions",
  /** Checkout mode's working copies (workspace.localRoot's default). */
  checkouts: "checkouts",
  /** The bridge's own git config (git/runner.ts). */
  gitConfig: "git/config",
  /** Claude Code's per-seat home (agent.configDir's default). */
  claude: "claude",
  /** Codex's per-seat home (agent.home's default). */
  codex: "codex",
  /** The key of the state dir's lock (state/lock.ts: one daemon per seat). */
  lockKey: "lock.key",
  /** The agents' jail: the passwd and group lines it shows them. */
  jail: "jail",
} as const;

export type StateEntry = keyof typeof STATE_LAYOUT;

/** The path of one entry of a state dir. */
export function statePath(stateDir: string, what: StateEntry): string {
  return join(stateDir, STATE_LAYOUT[what]);
}
