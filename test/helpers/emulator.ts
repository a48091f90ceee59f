// A temporary board for tests: the emulator by default (real processes, real SQLite, no mocks), or
// the real Hermes CLI (`Emu.create(slug, { command })`, e.g. from HERMES_BIN) for the real lane.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { HermesCliBoard, type HermesCliBoardOptions } from "../../src/board/index.js";
import { main as emulatorMain } from "../../src/emulator/main.js";
import { runProcess } from "../../src/process/runner.js";

export const EMULATOR_BIN = resolve("dist/emulator/bin.js");
export const CLI_BIN = resolve("dist/cli/main.js");

export interface Res {
  code: number | null;
  stdout: string;
  stderr: string;
}

let callCount = 0;

export class Emu {
  private constructor(
    readonly dir: string,
    readonly home: string,
    readonly slug: string,
    readonly command: string[],
    /** The real Hermes CLI: board time cannot be moved (`advance`), claims are expired by `reclaim`. */
    readonly real: boolean,
    /** Set for every call (e.g. HERMES_EMULATOR_COMPAT=named-claims: the emulator as the Hermes after 0.20). */
    readonly extraEnv: Record<string, string> = {},
  ) {}

  static async create(slug = "bridge", o: { command?: string[]; env?: Record<string, string> } = {}): Promise<Emu> {
    // Passable by every uid (0711, never listable): a bridge running as root runs its agents as another
    // user, whose bubblewrap must pass this dir to the run dirs and workspaces below it.
    const dir = mkdtempSync(join(tmpdir(), "hkb-test-"));
    chmodSync(dir, 0o711);
    const emu = new Emu(dir, join(dir, "hermes"), slug, o.command ?? [process.execPath, EMULATOR_BIN], o.command !== undefined, o.env ?? {});
    const r = await emu.raw(["kanban", "boards", "create", slug]);
    if (r.code !== 0) throw new Error(`boards create failed: ${r.stderr}`);
    return emu;
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    // The real CLI also reads its profile from HOME: keep it inside the test's directory.
    return { PATH: process.env.PATH ?? "", HERMES_HOME: this.home, ...(this.real ? { HOME: this.dir } : {}), ...this.extraEnv, ...extra };
  }

  /**
   * One CLI call. The test's own calls to the emulator (set-up, checks) run its `main()` in this process
   * — the same function a call-server call runs, with a pid of its own for the claim lock — instead of a
   * Node start per call (most of the suite's CPU once). A call that can hang or stream (faults, `watch`)
   * and every real-CLI call stays a process; the bridge's own calls are untouched.
   */
  async raw(args: string[], extraEnv: Record<string, string> = {}): Promise<Res> {
    const env = this.env(extraEnv);
    if (!this.real && env.HERMES_EMULATOR_FAULTS === undefined && !args.includes("watch")) {
      return emulatorMain(args, { ...env, HERMES_EMULATOR_CALL_PID: `7${process.pid}${String(callCount++).padStart(6, "0")}` });
    }
    const r = await runProcess({ argv: [...this.command, ...args], env, timeoutMs: 30_000 });
    return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
  }

  /** `kanban --board <slug> …` */
  kanban(args: string[], extraEnv: Record<string, string> = {}): Promise<Res> {
    return this.raw(["kanban", "--board", this.slug, ...args], extraEnv);
  }

  async createTask(
    title: string,
    o: {
      assignee?: string;
      body?: string;
      priority?: number;
      parent?: string;
      workspace?: string;
      maxRuntime?: string;
      branch?: string;
      /** More `create` flags as given (`--model m`, `--skill s`). */
      extra?: string[];
    } = {},
  ): Promise<string> {
    const args = ["create", title, "--json"];
    if (o.assignee) args.push("--assignee", o.assignee);
    if (o.body) args.push(`--body=${o.body}`);
    if (o.priority !== undefined) args.push("--priority", String(o.priority));
    if (o.parent) args.push("--parent", o.parent);
    if (o.workspace) args.push(`--workspace=${o.workspace}`);
    if (o.maxRuntime) args.push(`--max-runtime=${o.maxRuntime}`);
    if (o.branch) args.push(`--branch=${o.branch}`);
    if (o.extra) args.push(...o.extra);
    const r = await this.kanban(args);
    if (r.code !== 0) throw new Error(`create failed: ${r.stderr}`);
    return (JSON.parse(r.stdout) as { id: string }).id;
  }

  async show(id: string): Promise<ShowDoc> {
    const r = await this.kanban(["show", id, "--json"]);
    if (r.code !== 0) throw new Error(`show failed: ${r.stderr}`);
    return JSON.parse(r.stdout) as ShowDoc;
  }

  /** Moves board time forward (claims expire) without waiting. */
  advance(seconds: number): void {
    if (this.real) throw new Error("the real Hermes CLI has no clock to move: use `reclaim`");
    writeFileSync(join(this.home, ".emulator-clock-offset"), String(seconds));
  }

  board(o: Partial<HermesCliBoardOptions> & { author?: string; envExtra?: Record<string, string> } = {}): HermesCliBoard {
    return new HermesCliBoard({
      slug: this.slug,
      command: this.command,
      env: {
        parent: { ...process.env, ...(o.envExtra ?? {}) },
        passEnv: [],
        set: { HERMES_HOME: this.home, ...(this.real ? { HOME: this.dir } : {}), ...this.extraEnv },
        author: o.author ?? "test-bridge",
      },
      timeoutMs: 20_000,
      retry: { retries: 3, minDelayMs: 20, maxDelayMs: 100, deadlineMs: 20_000 },
      ...o,
    });
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface ShowDoc {
  task: { id: string; status: string; assignee: string | null; workspace_path: string | null };
  comments: { author: string; body: string }[];
  events: { kind: string; payload: Record<string, unknown> | null; run_id: number | null; created_at: number }[];
  runs: { id: number; status: string; outcome: string | null; summary: string | null; metadata: Record<string, unknown> | null; ended_at: number | null }[];
}
