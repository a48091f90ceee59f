// The journal of active runs (restart recovery): one small JSON file per run in flight, written
// atomically when the agent starts, removed after the close.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface ActiveRun {
  board: string;
  task: string;
  runId: number | null;
  traceId: string;
  pid: number;
  pidStart: string | null;
  pgid: number;
  workspace: string;
  deadline: number;
  claimedAt: number;
  ttlSeconds: number;
  resultFile: string;
  runDir: string;
  agent: string;
  /** The run's task-tools socket and token (0600 file): an adopted CLI agent reconnects to it. */
  tools?: { path: string; token: string } | null;
}

export class ActiveRuns {
  constructor(readonly dir: string) {}

  private file(board: string, task: string): string {
    return join(this.dir, `${board}__${task}.json`);
  }

  write(r: ActiveRun): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const f = this.file(r.board, r.task);
    writeFileSync(`${f}.tmp`, `${JSON.stringify(r)}\n`, { mode: 0o600 });
    renameSync(`${f}.tmp`, f);
  }

  remove(board: string, task: string): void {
    rmSync(this.file(board, task), { force: true });
  }

  list(): ActiveRun[] {
    if (!existsSync(this.dir)) return [];
    const out: ActiveRun[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith(".json")) continue;
      try {
        out.push(JSON.parse(readFileSync(join(this.dir, name), "utf8")) as ActiveRun);
      } catch {
        rmSync(join(this.dir, name), { force: true });
      }
    }
    return out;
  }
}
