// The work phase's scopes: each opens one concern of a working run and pushes its own release on the
// phase's one stack (log/releasers.ts) — the operator-note inbox, the lease's hold (heartbeats, ownership
// checks, board events reaching the run), the task tools. The stop ladder (stops.ts) and the run's cell
// (cell.ts) open themselves the same way; work.ts tells the story in that order.
import { describeError } from "../../errors/index.js";
import type { Releasers } from "../../log/releasers.js";
import { DEFAULT_TOOL_LIMITS, ToolBudget } from "../../tools/budget.js";
import { ToolHost } from "../../tools/host.js";
import type { AgentRun } from "./agent-run.js";
import type { Work } from "../context.js";
import { NoteInbox } from "./inbox.js";
import type { RunStops } from "./stops.js";

/** The operator notes for the agent: which comments reach it, and what it has seen (the journal keeps it). */
export function openInbox(w: Work): NoteInbox {
  const { record } = w;
  const { settings, clock } = w.seat;
  const inbox = new NoteInbox({
    author: settings.author,
    seen: w.detail.comments.length,
    now: () => clock.now(),
    authors: settings.steering?.authors,
    maxNotes: settings.steering?.maxNotesPerRun,
    hooks: {
      delivered: (notes, at) => {
        // The journal keeps what the agent has seen: a crash now does not hand the same note over twice.
        record.session?.notesSeen(inbox.watermark());
        const last = notes.at(-1);
        if (last) record.operatorNote = { ...last, deliveredAt: at };
        w.events.tell("notes", notes, at);
      },
      arrived: (count) => w.events.tell("notes_offered", count),
    },
  });
  return inbox;
}

/** The lease held while the run works: heartbeats carrying the last note, ownership checks feeding the inbox, board events reaching the run. */
export function holdLease(w: Work, inbox: NoteInbox, stops: RunStops, scope: Releasers): void {
  const { record } = w;
  const held = w.start.held;
  held.on("unresolved", (err) => stops.stop("unresolved", describeError(err)));
  held.on("heartbeat", ({ at }) => {
    record.lastHeartbeat = at;
  });
  held.hold({ note: () => record.story.lastNote, onDetail: (d) => inbox.update(d.comments) });
  scope.push("the lease's heartbeat", () => held.stop());
  // Board events about this task reach the run while it works (an ownership check, new notes).
  record.live = { checkNow: () => held.checkNow() };
  scope.push("board events", () => {
    record.live = null;
  });
}

/** The task tools (their budget for this run, agent.budget.tools) and, for an agent that uses them, their host and socket. */
export async function openTools(w: Work, inbox: NoteInbox, scope: Releasers): Promise<AgentRun["tools"]> {
  const { record } = w;
  const { seat, start } = w;
  record.tools = new ToolBudget({ ...DEFAULT_TOOL_LIMITS, ...seat.settings.budget.tools }, () => seat.clock.now());
  record.story.tools = record.tools;
  if (!start.agent.usesTools) return null;
  const host = new ToolHost({
    budget: record.tools,
    fenced: start.held.fenced,
    redactor: seat.redactor,
    onNote: (n) => {
      record.note(n);
      w.events.tell("progress", n);
    },
    ...(start.agent.notesVia === "tools" ? { inbox } : {}),
  });
  const tools = { host, endpoint: await seat.make.tools(host, start.adopted?.tools ?? undefined) };
  scope.push("task tools", () => tools.endpoint.close());
  scope.push("task tools host", () => tools.host.end());
  return tools;
}
