// Where `hermes-bridge stats` reads from, besides the boards: the outboxes of the seats this host keeps
// (their state dirs under the fleet's root, and the seat's own) — for the runs whose close the board does
// not show, what the seat knows: a close that failed for good (a dead letter), a lease it recorded lost.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { Outbox } from "../outbox/outbox.js";
import type { OutboxFact } from "./stats-runs.js";

/** The state dirs under `root` (one per seat) and the `extra` ones, each once. */
export async function seatDirs(root: string | undefined, extra: readonly (string | undefined)[]): Promise<string[]> {
  const dirs = new Set(extra.filter((d): d is string => d !== undefined));
  if (root) {
    const names = await readdir(root, { withFileTypes: true }).catch(() => []);
    for (const n of names) if (n.isDirectory()) dirs.add(join(root, n.name));
  }
  return [...dirs].sort();
}

/** What the seats' outboxes say of each run (`board/task/run`): a landed close wins over a failed attempt of it. */
export function outboxFacts(dirs: readonly string[]): Map<string, OutboxFact> {
  const facts = new Map<string, OutboxFact>();
  for (const dir of dirs) {
    let entries: ReturnType<Outbox["entries"]>;
    try {
      entries = new Outbox(dir).entries();
    } catch {
      continue; // not a seat's dir, or not readable: the board's records stand alone for its runs
    }
    for (const e of entries) {
      if (e.runId === null) continue;
      const key = `${e.board}/${e.taskId}/${e.runId}`;
      const state =
        e.state === "done" || e.state === "refused" ? "landed" : e.state === "lease_lost" ? "lost" : e.state === "failed" || e.state === "dead" ? "dead" : null;
      if (state === null) continue;
      const had = facts.get(key);
      if (had?.state === "landed") continue;
      facts.set(key, { seat: e.seat, state });
    }
  }
  return facts;
}
