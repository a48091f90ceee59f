// One task's continuity record, and the only code that writes it: the session journal entry of a
// board + task (journal.ts stores it) as a run moves on — the agent's session handle the moment it is
// known (a crash later must not lose it), a resume that failed, the end of the run (what the next run
// needs — also once the task is done, for a reopen), a run cut by a bridge restart. The record is held here
// and read from here; nobody keeps a copy.
import { type CutReason, type LastRunInfo, SessionJournal, type SessionRecord } from "./journal.js";

export interface RunEnd {
  /** The task was completed (the close landed): kept as cut `done` for a reopen. */
  completed: boolean;
  runId: number | null;
  traceId: string;
  cut: CutReason;
  at: string;
  note: string | null;
  changedFiles: readonly string[];
  commentsSeen: number;
  /** The session was resumed by this run (counts against the resume budget). */
  resumed: boolean;
}

export class TaskSession {
  private constructor(
    private readonly journal: SessionJournal,
    private rec: SessionRecord,
  ) {}

  static async open(journal: SessionJournal, board: string, task: string, agent: string): Promise<TaskSession> {
    return new TaskSession(journal, (await journal.get(board, task)) ?? SessionJournal.fresh(board, task, agent));
  }

  get record(): Readonly<SessionRecord> {
    return this.rec;
  }

  /**
   * The files earlier sittings of this task's work changed — the last run's, when it was cut (a resumption
   * continues that work), never a completed run's (a reopen starts new work). A run's changed files are its
   * own sitting's and these (gate/changes.ts sees only what changed since its own start).
   */
  earlierFiles(): readonly string[] {
    const last = this.rec.lastRun;
    return last && last.cut !== "done" ? last.changedFiles : [];
  }

  /** The task's durable directory (saved local-LLM history). */
  dir(): string {
    return this.journal.taskDir(this.rec.board, this.rec.task);
  }

  /** The run is about to start this agent in this workspace (not written until something happens). */
  preparing(agent: string, workspace: string): void {
    this.rec = { ...this.rec, agent, workspace };
  }

  /** The resume budget is used up: the session is dropped, the next run starts fresh. */
  exhausted(): void {
    this.rec = { ...this.rec, session: null, resumes: 0 };
  }

  /** The agent's session handle is known: journaled at once. */
  started(id: string): void {
    this.write({ ...this.rec, session: id });
  }

  /** The session given to resume could not be continued: never tried again. */
  resumeFailed(session: string): void {
    this.write({ ...this.rec, session: null, failedSessions: [...this.rec.failedSessions, session].slice(-20) });
  }

  /** Operator notes reached the running agent: the comments it has seen so far, journaled at once. */
  notesSeen(commentsSeen: number): void {
    if (commentsSeen <= (this.rec.commentsSeen ?? this.rec.lastRun?.commentsSeen ?? 0)) return;
    this.write({ ...this.rec, commentsSeen });
  }

  /**
   * After the close: what the next run needs to continue. A completed task keeps its session (cut `done`,
   * the resume budget afresh): if the board reopens it, the next run of this seat resumes that session.
   */
  ended(e: RunEnd): void {
    const lastRun: LastRunInfo = {
      runId: e.runId,
      traceId: e.traceId,
      cut: e.completed ? "done" : e.cut,
      at: e.at,
      note: e.note?.slice(0, 500) ?? null,
      changedFiles: e.changedFiles.slice(0, 200),
      commentsSeen: e.commentsSeen,
      summary: null,
    };
    const { commentsSeen: _mid, ...rest } = this.rec;
    this.write({ ...rest, runs: this.rec.runs + 1, resumes: e.completed ? 0 : this.rec.resumes + (e.resumed ? 1 : 0), lastRun });
  }

  /** A run cut by a bridge restart (recovery): only an existing record is updated. */
  static async crashed(
    journal: SessionJournal,
    board: string,
    task: string,
    run: { runId: number | null; traceId: string; at: string },
  ): Promise<TaskSession | null> {
    const rec = await journal.get(board, task);
    if (!rec) return null;
    const s = new TaskSession(journal, rec);
    const { commentsSeen: mid, ...rest } = rec;
    s.write({
      ...rest,
      runs: rec.runs + 1,
      lastRun: { ...run, cut: "crash", note: null, changedFiles: [], commentsSeen: mid ?? rec.lastRun?.commentsSeen ?? 0, summary: null },
    });
    return s;
  }

  private write(rec: SessionRecord): void {
    this.rec = rec;
    this.journal.put(rec);
  }
}
