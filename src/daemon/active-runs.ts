// The journal of active runs (restart recovery): one small JSON file per run in flight, written
// atomically when the agent starts, removed after the close. Parsed with zod on read, and an entry
// whose paths lead outside the state dir (or whose tools socket is not one the bridge makes) is
// quarantined: recovery reads and removes only what the bridge itself wrote.
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { readSmallFile } from "../state/read.js";
import { isInside } from "../agent-files/contain.js";
import { quarantine } from "../state/quarantine.js";
import { isRunSocketPath } from "../tools/socket-path.js";
import { writeStateFile } from "../state/atomic.js";

const ActiveRunSchema = z.object({
  board: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/),
  task: z.string().regex(/^t_[0-9a-f]+$/),
  runId: z.number().int().nullable(),
  /** The claim's own lock (`<host>:<pid>` of the claim process), when the CLI runs here. */
  claimLock: z.string().max(300).optional(),
  traceId: z.string().min(1).max(100),
  pid: z.number().int().positive(),
  pidStart: z.string().nullable(),
  pgid: z.number().int().positive(),
  /** The board's path of the workspace (the lease) and where the agent runs on this host. */
  workspace: z.string(),
  localWorkspace: z.string(),
  deadline: z.number(),
  claimedAt: z.number(),
  ttlSeconds: z.number(),
  resultFile: z.string(),
  runDir: z.string(),
  /** The run's private dir, where its agent's output files are (never shown to the agent); older entries: the run dir. */
  outputDir: z.string().optional(),
  agent: z.string(),
  /** The agent ran inside the bridge (the local loop; pid, pidStart: the bridge's): it died with it, never adopted. */
  inProcess: z.boolean().optional(),
  /** The bridge stopped the agent politely and kept the claim for its restart (shutdown.inFlight: continue). */
  kept: z.boolean().optional(),
  /** The run's task-tools socket and token (0600 file): an adopted CLI agent reconnects to it. */
  tools: z
    .object({ path: z.string(), token: z.string().min(16) })
    .nullable()
    .optional(),
});

export type ActiveRun = z.output<typeof ActiveRunSchema>;

export class ActiveRuns {
  /** What this process wrote, by file: a moved deadline is written over it. */
  private readonly written = new Map<string, ActiveRun>();
  constructor(
    readonly dir: string,
    /** Where run directories live (an entry's runDir must be inside). */
    private readonly runsDir: string,
  ) {}

  private file(board: string, task: string): string {
    return join(this.dir, `${board}__${task}.json`);
  }

  write(r: ActiveRun): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const f = this.file(r.board, r.task);
    writeStateFile(f, `${JSON.stringify(r)}\n`);
    this.written.set(f, r);
  }

  /** The CLI renewed the claim: an adopting bridge must see the later deadline. */
  moveDeadline(board: string, task: string, deadline: number): void {
    const r = this.written.get(this.file(board, task));
    if (r) this.write({ ...r, deadline });
  }

  /** The run's claim is kept for the restart (its agent was stopped politely): the next start continues it. */
  markKept(board: string, task: string): void {
    const r = this.written.get(this.file(board, task));
    if (r) this.write({ ...r, kept: true });
  }

  remove(board: string, task: string): void {
    const f = this.file(board, task);
    this.written.delete(f);
    rmSync(f, { force: true });
  }

  /** Why an entry cannot be trusted, or null. */
  private problem(r: ActiveRun, name: string): string | null {
    if (name !== `${r.board}__${r.task}.json`) return "its name does not match its board and task";
    if (dirname(r.runDir) !== this.runsDir || !isInside(this.runsDir, r.runDir)) return `runDir ${r.runDir} is not a run directory of this state dir`;
    if (!isInside(r.runDir, r.resultFile)) return `resultFile ${r.resultFile} is outside its run directory`;
    if (r.tools && !isRunSocketPath(r.tools.path)) return `tools socket ${r.tools.path} is not a bridge socket path`;
    return null;
  }

  async list(): Promise<ActiveRun[]> {
    if (!existsSync(this.dir)) return [];
    const out: ActiveRun[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith(".json")) continue;
      const f = join(this.dir, name);
      const text = await readSmallFile(f, 64 * 1024);
      if ("error" in text) {
        quarantine(f, text.error);
        continue;
      }
      let parsed: ReturnType<typeof ActiveRunSchema.safeParse>;
      try {
        parsed = ActiveRunSchema.safeParse(JSON.parse(text.text ?? ""));
      } catch {
        quarantine(f, "not JSON");
        continue;
      }
      if (!parsed.success) {
        quarantine(f, `not an active-run entry (${parsed.error.issues[0]?.path.join(".") ?? "?"}: ${parsed.error.issues[0]?.message ?? "invalid"})`);
        continue;
      }
      const bad = this.problem(parsed.data, name);
      if (bad) {
        quarantine(f, bad);
        continue;
      }
      out.push(parsed.data);
    }
    return out;
  }
}
