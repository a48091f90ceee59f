// One run's budget for the task tools (agent.budget.tools): comments and their bytes, heartbeats a minute,
// attachments at the close. A run that floods the board (40 comments of 19 KB in a minute slowed every
// seat's calls) is answered an error naming the budget, past it; what it used and what was refused is on
// the card (`counts`). The seat's own heartbeats (the lease keeper) are not the tool's and never counted.

export interface ToolLimits {
  /** Comments one run may post. */
  comments: number;
  /** Bytes of all its comments together. */
  commentBytes: number;
  /** Tool heartbeats in any minute (the note is kept as the run's progress either way). */
  heartbeatsPerMinute: number;
  /** Files one run may attach at its close (its deliverables). */
  attachments: number;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = { comments: 25, commentBytes: 100_000, heartbeatsPerMinute: 6, attachments: 20 };

export interface ToolCounts {
  comments: number;
  commentBytes: number;
  heartbeats: number;
  attachments: number;
  /** Calls answered with the budget's error, per kind. */
  refused: { comments: number; heartbeats: number; attachments: number };
}

const KEY = "agent.budget.tools";

export class ToolBudget {
  private readonly c: ToolCounts = { comments: 0, commentBytes: 0, heartbeats: 0, attachments: 0, refused: { comments: 0, heartbeats: 0, attachments: 0 } };
  /** When each tool heartbeat of the last minute was taken. */
  private beats: number[] = [];

  constructor(
    readonly limits: ToolLimits,
    private readonly now: () => number,
  ) {}

  counts(): ToolCounts {
    return { ...this.c, refused: { ...this.c.refused } };
  }

  /** Whether any tool was used or refused (the card carries the counts only then). */
  used(): boolean {
    const r = this.c.refused;
    return this.c.comments + this.c.heartbeats + this.c.attachments + r.comments + r.heartbeats + r.attachments > 0;
  }

  /** A comment of `bytes`: taken (null), or why not — the budget named. */
  comment(bytes: number): string | null {
    const l = this.limits;
    let why: string | null = null;
    if (this.c.comments >= l.comments) why = `this run has posted its ${l.comments} comments (${KEY}.comments)`;
    else if (this.c.commentBytes + bytes > l.commentBytes)
      why = `this comment (${bytes} bytes) would take this run's comments past ${l.commentBytes} bytes (${KEY}.commentBytes; ${l.commentBytes - this.c.commentBytes} left)`;
    if (why) {
      this.c.refused.comments += 1;
      return `${why}: nothing was posted — put what matters in your final summary`;
    }
    this.c.comments += 1;
    this.c.commentBytes += bytes;
    return null;
  }

  /** A tool heartbeat: taken (null), or why not (the minute's budget, and when the next one is taken). */
  heartbeat(): string | null {
    const at = this.now();
    this.beats = this.beats.filter((t) => at - t < 60_000);
    if (this.beats.length >= this.limits.heartbeatsPerMinute) {
      this.c.refused.heartbeats += 1;
      const wait = Math.max(1, Math.ceil((60_000 - (at - (this.beats[0] ?? at))) / 1000));
      return `at most ${this.limits.heartbeatsPerMinute} heartbeats a minute (${KEY}.heartbeatsPerMinute): not posted, kept as the run's progress note (the seat's own heartbeat carries it); the next one is taken in ${wait} s`;
    }
    this.beats.push(at);
    this.c.heartbeats += 1;
    return null;
  }

  /** Whether `n` more files may be attached (a complete's check: nothing counted), or why not. */
  wouldAttach(n: number): string | null {
    const left = this.limits.attachments - this.c.attachments;
    return n > left ? `${n} files to attach, more than this run's ${this.limits.attachments} attachments (${KEY}.attachments)` : null;
  }

  /** `n` files about to be attached at the close: taken (null, counted), or why not (counted as refused). */
  attach(n: number): string | null {
    const why = this.wouldAttach(n);
    if (why) {
      this.c.refused.attachments += n;
      return why;
    }
    this.c.attachments += n;
    return null;
  }
}
