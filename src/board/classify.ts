// Exit code + stderr → typed error (hermes-cli-contract.md §1.3; v0.14 exited 0 on failures).
import type { RunResult } from "../process/runner.js";
import {
  type BoardError,
  type BoardErrorData,
  BoardCorrupt,
  BoardNotFound,
  CliUnavailable,
  GoalJudgeRejected,
  NotClaimable,
  Rejected,
  TaskNotFound,
  Transient,
  UnmetParents,
  UsageError,
} from "../errors/board.js";

export function stderrTail(stderr: string, max = 400): string {
  const lines = stderr
    .trim()
    .split("\n")
    .filter((l) => l.trim().length > 0);
  const tail = lines.slice(-3).join(" | ");
  return tail.length > max ? `…${tail.slice(tail.length - max)}` : tail;
}

const TRANSIENT_RE =
  /database is locked|database table is locked|disk I\/O error|unable to open database|Resource temporarily unavailable|Connection (?:reset|refused|closed|timed out)|Broken pipe|Temporary failure/i;

/**
 * The hermes program is not there — said as such, not as a usage error: Python's "can't open file …
 * [Errno 2]" (exit 2: `python3 /opt/hermes/hermes` with no such script) or a shell's "command not found"
 * (exit 127: a wrapper, or the remote shell of `ssh host hermes`).
 */
function missingProgram(exitCode: number | null, stderr: string): string | null {
  const py = /can't open file '([^']+)': \[Errno 2\]/.exec(stderr);
  if (exitCode === 2 && py) return `the hermes program ${py[1]} does not exist`;
  if (exitCode === 127) {
    const sh = /(?:^|\s)([^\s:]+): (?:command )?not found/.exec(stderr);
    return `the hermes program ${sh?.[1] ? `'${sh[1]}' ` : ""}was not found (exit 127)`;
  }
  return null;
}

/** Returns the error a finished CLI call stands for, or null when it succeeded. */
export function classify(res: RunResult, d: Omit<BoardErrorData, "exitCode" | "stderrTail">): BoardError | null {
  const data: BoardErrorData = { ...d, exitCode: res.exitCode, stderrTail: stderrTail(res.stderr) };
  if (res.reason === "timeout") return new Transient(data, `no answer within the call timeout (${res.durationMs} ms)`);
  if (res.reason === "aborted") return new Transient({ ...data, cause: res.abortReason }, "call aborted");
  if (res.reason === "spawn_failed") {
    const msg = res.spawnError?.message ?? "spawn failed";
    if (/E2BIG/.test(msg)) return new UsageError({ ...data, cause: res.spawnError }, "argument list too long (E2BIG)");
    const code = res.spawnError?.code;
    if (code === "ENOENT" || code === "EACCES" || code === "ENOTDIR")
      return new CliUnavailable({ ...data, cause: res.spawnError }, `'${res.argv[0] ?? "?"}' cannot be started (${code})`);
    return new Transient({ ...data, cause: res.spawnError }, `could not start the hermes command: ${msg}`);
  }
  if (res.signal) return new Transient(data, `killed by ${res.signal}`);
  const stderr = res.stderr.trim();
  // Older Hermes (v0.14) exited 0 on domain errors: exit 0 + empty stdout + stderr text = failure.
  const legacyFailure = res.exitCode === 0 && res.stdout.trim() === "" && stderr !== "";
  if (res.exitCode === 0 && !legacyFailure) return null;
  const missing = missingProgram(res.exitCode, stderr);
  if (missing) return new CliUnavailable(data, missing);
  if (res.exitCode === 2) {
    if (/invalid board slug/.test(stderr)) return new UsageError(data, "invalid board slug");
    return new UsageError(data);
  }
  if (res.exitCode !== 1 && !legacyFailure) return new Transient(data, `unexpected exit code ${res.exitCode}`);
  if (/board '[^']*' does not exist/.test(stderr)) return new BoardNotFound(data);
  const corrupt = corruptBoard(stderr, data);
  if (corrupt) return corrupt;
  if (/no such task|unknown task/.test(stderr)) return new TaskNotFound(data);
  const nc = /cannot claim \S+: status=(\S+) lock=(\S+)/.exec(stderr);
  if (nc) return new NotClaimable(data, nc[1] ?? null, nc[2] === "(none)" ? null : (nc[2] ?? null));
  if (TRANSIENT_RE.test(stderr) || /Traceback \(most recent call last\)/.test(stderr)) return new Transient(data, "the CLI failed while working");
  if (stderr === "") return new Transient(data, "failed without a message");
  return closeRefusal(stderr, data) ?? new Rejected(data, stderr.split("\n").pop() ?? "refused");
}

const CORRUPT_RE = /Refusing to open corrupt kanban DB at (.+?): (.*)\. Original preserved; backup at (.+?)\.?$/m;

/**
 * A corrupt board database, as the CLI says it at the database's start (hermes_cli/kanban.py
 * `kanban_command`: `could not initialize database: …`, recorded from the real 0.21.3 CLI): the guard's
 * `KanbanDbCorruptError` (db, reason, backup — `<backup failed>` when the copy failed), or SQLite's own
 * words when the guard did not catch it first (an invalid header, a malformed image).
 */
function corruptBoard(stderr: string, data: BoardErrorData): BoardCorrupt | null {
  const m = CORRUPT_RE.exec(stderr);
  if (m) return new BoardCorrupt(data, { dbPath: m[1] ?? null, backupPath: m[3] === "<backup failed>" ? null : (m[3] ?? null), reason: m[2] ?? "" });
  const sqlite = /could not initialize database: (.*(?:file is not a database|database disk image is malformed).*)$/m.exec(stderr);
  return sqlite ? new BoardCorrupt(data, { dbPath: null, backupPath: null, reason: sqlite[1] ?? "" }) : null;
}

/**
 * The hints Hermes 0.21.4+ prints after the goal judge's words (hermes_cli/kanban.py `_cmd_complete`,
 * `_cmd_request_review`, commit 00030df13ffeaadcadf9d79935bac522e5552c88): cut off, the judge's words remain.
 */
const GOAL_HINTS = [
  "Provide evidence matching the task's acceptance criteria.",
  "Re-scope with kanban edit, or record the block with kanban block instead of completing.",
  "Provide acceptance evidence matching the task.",
  "Record the block with kanban block instead of requesting review.",
];
const GOAL_RE = /kanban: goal (completion|review handoff) of \S+ rejected(?: by judge: |: judge ruled the goal unachievable — )([\s\S]*)$/;
const PARENTS_RE = /cannot complete \S+: unsatisfied parent dependencies: ([\s\S]*?); complete the parents first/;

/** A close refused for a reason the bridge names the fix of (0.21.4+): the goal judge, unmet parents. */
function closeRefusal(stderr: string, data: BoardErrorData): Rejected | null {
  const goal = GOAL_RE.exec(stderr);
  if (goal) {
    let words = (goal[2] ?? "").trim();
    for (const hint of GOAL_HINTS) if (words.endsWith(hint)) words = words.slice(0, -hint.length).trim();
    words = words.replace(/\.$/, "");
    return new GoalJudgeRejected(
      data,
      goal[1] === "completion" ? "completion" : "review handoff",
      /judge ruled the goal unachievable/.test(stderr) ? "unachievable" : "continue",
      words,
    );
  }
  const parents = PARENTS_RE.exec(stderr);
  if (parents) {
    const list = (parents[1] ?? "").split(", ").map((p) => /^(\S+) \(([^)]*)\)$/.exec(p.trim()));
    if (list.every((m) => m !== null))
      return new UnmetParents(
        data,
        list.map((m) => ({ id: m?.[1] ?? "", status: m?.[2] ?? "" })),
      );
  }
  return null;
}

/** `cannot heartbeat|complete|block|schedule|reclaim <id>` (or `request review for`): state or fencing — the adapter must look at the task to tell. */
export function isLeaseBoundRefusal(err: unknown): err is Rejected {
  return err instanceof Rejected && /cannot (heartbeat|complete|block|schedule|reclaim|request review for) /.test(err.stderrTail ?? "");
}

/**
 * A refusal that itself says the claim is not ours (upstream): the heartbeat's "claim lost" / "not held",
 * the live-claim fence, a compare-and-set guard that found another status. Never retried as transient.
 */
export function isOwnershipRefusal(err: unknown): err is Rejected {
  return err instanceof Rejected && /claim lost|not held by|live claim held|expected status/i.test(err.stderrTail ?? "");
}
