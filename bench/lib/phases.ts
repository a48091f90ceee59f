// Where a task's time goes on the bridge's side (issue 54): each task's phases from the bridge's own log
// (the run's `phase` lines at debug, `claimed`, `agent started`) and its call log (HKB_CALL_LOG), at p50
// and p95 over the tasks of a section; and each CLI verb's wall time. What happens inside the jail after the
// spawn (bubblewrap, the relay, the agent, its exit) is one span here: bench/jail.ts times its steps apart.
import { readFileSync } from "node:fs";
import { percentile } from "./proc.js";

export interface CallLine {
  start: number;
  end: number;
  verb: string;
  task: string | null;
  code: number;
}

interface LogLine {
  time: number;
  msg: string;
  task_id?: string;
  phase?: string;
}

/** The bridge's JSON log lines about `ids` (a file it appends to); lines that are not JSON are skipped. */
export function logLines(file: string, ids: ReadonlySet<string>): LogLine[] {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const out: LogLine[] = [];
  for (const l of text.split("\n")) {
    if (!l.startsWith("{")) continue;
    try {
      const o = JSON.parse(l) as LogLine;
      if (o.task_id && ids.has(o.task_id)) out.push(o);
    } catch {
      // a partial last line
    }
  }
  return out;
}

/** The phases, in the order a task goes through them: [row, from, to] (a mark is a phase, a log message or a call). */
const SPANS: [string, string, string][] = [
  ["claim (the `claim` call)", "call:claim:start", "call:claim:end"],
  ["read (`context` ∥ `show`)", "call:claim:end", "phase:preparing"],
  ["prepare (workspace, prompt, session)", "phase:preparing", "phase:working"],
  ["jail set-up before the spawn (proxy, repo guard, cgroup, images, hand-over)", "phase:working", "log:agent started"],
  ["in the jail (bubblewrap, relay start, the agent, its exit) + gate", "log:agent started", "phase:delivering"],
  ["close (`complete`, the record)", "phase:delivering", "phase:closed"],
  ["whole task (claim start → closed)", "call:claim:start", "phase:closed"],
];

/** Per phase, the p50 and p95 in ms over the tasks that have both marks. */
export function phaseTable(ids: readonly string[], log: LogLine[], calls: CallLine[]): { phase: string; p50: number; p95: number; n: number }[] {
  const marks = new Map<string, Map<string, number>>();
  const mark = (task: string, k: string, t: number) => {
    const m = marks.get(task) ?? new Map<string, number>();
    if (!m.has(k)) m.set(k, t);
    marks.set(task, m);
  };
  for (const c of calls)
    if (c.task && c.code === 0)
      for (const [k, t] of [
        [`call:${c.verb}:start`, c.start],
        [`call:${c.verb}:end`, c.end],
      ] as const)
        mark(c.task, k, t);
  for (const l of log) {
    if (!l.task_id) continue;
    if (l.msg === "phase" && l.phase) mark(l.task_id, `phase:${l.phase}`, l.time);
    else mark(l.task_id, `log:${l.msg}`, l.time);
  }
  return SPANS.map(([phase, from, to]) => {
    const xs = ids.flatMap((id) => {
      const m = marks.get(id);
      const a = m?.get(from);
      const b = m?.get(to);
      return a !== undefined && b !== undefined ? [b - a] : [];
    });
    return { phase, p50: percentile(xs, 50), p95: percentile(xs, 95), n: xs.length };
  });
}

/** Each verb's wall time (ms) at p50 and p95, with its count. */
export function verbTable(calls: CallLine[]): { verb: string; p50: number; p95: number; n: number }[] {
  const by = new Map<string, number[]>();
  for (const c of calls) if (c.verb !== "watch") by.set(c.verb, [...(by.get(c.verb) ?? []), c.end - c.start]);
  return [...by.entries()].map(([verb, xs]) => ({ verb, p50: percentile(xs, 50), p95: percentile(xs, 95), n: xs.length }));
}
