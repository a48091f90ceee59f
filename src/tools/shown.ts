// What the agent is shown of its task — in the prompt, the context file and `kanban_show` alike: the
// title, body, comments, parents' and earlier runs' text with nothing hidden (result/text.ts
// `defuseHidden`: HTML comments and invisible or bidirectional characters written out and marked). The
// board's own record is untouched.
import type { TaskDetail } from "../board/port.js";
import { defuseHidden } from "../result/text.js";

export function shownToAgent(detail: TaskDetail, contextText: string): { detail: TaskDetail; contextText: string } {
  const d = (s: string | null) => (s === null ? null : defuseHidden(s));
  return {
    contextText: defuseHidden(contextText),
    detail: {
      ...detail,
      task: { ...detail.task, title: defuseHidden(detail.task.title), body: d(detail.task.body) },
      comments: detail.comments.map((c) => ({ ...c, body: defuseHidden(c.body) })),
      runs: detail.runs.map((r) => ({ ...r, summary: d(r.summary) })),
      // An event's reason reaches the prompt too (a reopen's: run/prepare/reopen.ts).
      events: detail.events.map((e) => ({ ...e, reason: d(e.reason) })),
    },
  };
}
