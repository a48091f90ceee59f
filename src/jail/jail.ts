// The agent's jail (agent.isolation): every agent process — a command agent, the Claude Code and Codex
// CLIs, the local loop's run_command, the gate's verification commands — starts inside bubblewrap with
// its own pid namespace, the system read-only, its workspace and its run dir writable at their real
// paths, its CLI's per-seat home, the task-tool socket, a fresh /tmp and HOME — and nothing of the
// bridge: not its /proc, environment, HOME, config, state dir, other workspaces or any Hermes home.
// `none` runs processes as they are (the daemon says so loudly: start log, doctor, status, fleet).
import { existsSync, lstatSync, mkdirSync, readlinkSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { ETC_ENTRIES, JAIL_HOME, type JailMounts, type SystemLayout, TOP_ENTRIES, bwrapArgs } from "./bwrap.js";

export interface JailPolicy {
  mode: "bwrap" | "none";
  /** Why this mode (the probe's answer, or the config). */
  why: string;
  /** The bwrap program (absolute). */
  bwrap: string;
  network: "host" | "none";
  /** Operator extras (agent.isolation.readOnly / readWrite), already checked against the forbidden roots. */
  readOnly: readonly string[];
  readWrite: readonly string[];
  /** Where the jail keeps its passwd/group files (a dir of the state dir). */
  dir: string;
}

/** What one run shows its agent (besides the system and the operator's extras). */
export interface RunMounts {
  workspace: string;
  runDir?: string | undefined;
  /** Files inside the run dir the agent may read but not change (the note inbox, its context). */
  readOnlyFiles?: readonly string[];
  /** The task-tool socket. */
  socket?: string | undefined;
}

/** The process as it must be started: argv and environment (HOME and TMPDIR inside the jail). */
export interface JailedCommand {
  argv: string[];
  env: Record<string, string>;
  /** Names the jail's processes (bwrap.ts): what is left of it once its process ended is found and killed by it. Unset without a jail. */
  marker?: string;
}

/** What one kind's process needs besides the run's own paths. */
export interface JailNeeds {
  /** Its per-seat home (CLAUDE_CONFIG_DIR, CODEX_HOME). */
  readWrite?: readonly string[];
  /** Its program's other parts, the bridge's task-tools server (Node, the package). */
  readOnly?: readonly string[];
  /** Files of the run dir it may read but not change (its MCP config, the note inbox). */
  readOnlyOver?: readonly string[];
  /** A folder of the run dir that is its HOME (Codex: the run's own skills), instead of the jail's fresh one. */
  home?: string;
}

/** A run's jail: wraps each process the agent starts; `needs` are the kind's own (its home, its program). */
export interface RunJail {
  readonly mode: "bwrap" | "none";
  command(argv: readonly string[], env: Readonly<Record<string, string>>, needs?: JailNeeds): JailedCommand;
}

function systemLayout(): SystemLayout {
  const tops: Record<string, string> = {};
  for (const t of TOP_ENTRIES) {
    try {
      const st = lstatSync(t);
      if (st.isSymbolicLink()) tops[t] = readlinkSync(t);
      else if (st.isDirectory()) tops[t] = "dir";
    } catch {
      // not on this system
    }
  }
  return { tops, etc: ETC_ENTRIES.filter((e) => existsSync(e)) };
}

/** An absolute program path for argv[0] (searched on the agent's PATH as the kernel would), or null. */
export function resolveProgram(program: string, path: string | undefined, cwd: string): string | null {
  if (program.includes("/")) return resolve(cwd, program);
  for (const dir of (path ?? "").split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const p = join(dir, program);
    try {
      if (statSync(p).isFile()) return p;
    } catch {
      // next
    }
  }
  return null;
}

/**
 * What must be visible for a program to start: the top `node_modules` it lives in (an npm-installed
 * CLI finds its siblings there: Codex's native binary is another package), else the file itself.
 */
export function programMounts(absolute: string): string[] {
  const out = new Set<string>([absolute]);
  for (const p of [absolute, safeReal(absolute)]) {
    const parts = p.split(sep);
    const i = parts.indexOf("node_modules");
    if (i > 0) out.add(parts.slice(0, i + 1).join(sep));
    else out.add(p);
  }
  return [...out];
}

const safeReal = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/** The paths a Node program of the bridge needs (the task-tools server): Node's prefix and the package's dist and modules. */
export function nodeMounts(packageRoot: string): string[] {
  const node = safeReal(process.execPath);
  const prefix = dirname(dirname(node));
  return [node, ...(prefix === "/usr" ? [] : [prefix]), join(packageRoot, "package.json"), join(packageRoot, "dist"), join(packageRoot, "node_modules")].filter(
    (p) => existsSync(p),
  );
}

export class Jail {
  private readonly system: SystemLayout;
  private readonly passwd: string;
  private readonly group: string;

  constructor(readonly policy: JailPolicy) {
    this.system = policy.mode === "bwrap" ? systemLayout() : { tops: {}, etc: [] };
    this.passwd = join(policy.dir, "passwd");
    this.group = join(policy.dir, "group");
    if (policy.mode === "bwrap") this.writeIdentity();
  }

  get mode(): "bwrap" | "none" {
    return this.policy.mode;
  }

  /** One passwd and group line for the agent's uid (programs that look themselves up find a name and HOME). */
  private writeIdentity(): void {
    mkdirSync(this.policy.dir, { recursive: true, mode: 0o700 });
    const uid = process.getuid?.() ?? 1000;
    const gid = process.getgid?.() ?? 1000;
    let name = "agent";
    try {
      name = userInfo().username.replace(/[^A-Za-z0-9._-]/g, "") || "agent";
    } catch {
      // no passwd entry on the host: "agent"
    }
    writeFileSync(this.passwd, `${name}:x:${uid}:${gid}:agent:${JAIL_HOME}:/bin/sh\n`, { mode: 0o644 });
    writeFileSync(this.group, `${name}:x:${gid}:\n`, { mode: 0o644 });
  }

  /** The jail of one run: its workspace, run dir and socket, plus what each process adds. */
  forRun(run: RunMounts): RunJail {
    const jail = this;
    return {
      mode: this.mode,
      command(argv, env, needs = {}) {
        return jail.command(argv, env, run, needs);
      },
    };
  }

  command(argv: readonly string[], env: Readonly<Record<string, string>>, run: RunMounts, extra: JailNeeds = {}): JailedCommand {
    if (this.mode === "none") return { argv: [...argv], env: { ...env } };
    const [program = "", ...rest] = argv;
    const abs = resolveProgram(program, env.PATH, run.workspace);
    const readOnly = [...(abs ? programMounts(abs) : []), ...(extra.readOnly ?? []), ...this.policy.readOnly];
    const readWrite = [
      run.workspace,
      ...(run.runDir ? [run.runDir] : []),
      ...(run.socket ? [run.socket] : []),
      ...(extra.readWrite ?? []),
      ...this.policy.readWrite,
    ];
    const mounts: JailMounts = {
      readOnly: unique(readOnly.filter((p) => existsSync(p))),
      readWrite: unique(readWrite.filter((p) => existsSync(p))),
      readOnlyOver: [...(run.readOnlyFiles ?? []), ...(extra.readOnlyOver ?? [])].filter((p) => existsSync(p)),
      passwd: this.passwd,
      group: this.group,
      network: this.policy.network,
      cwd: run.workspace,
      // The run dir names a run's jails (the journal keeps it for a restart); the gate's, its workspace.
      marker: jailMarkerOf(run),
    };
    return {
      argv: [this.policy.bwrap, ...bwrapArgs(mounts, this.system, [abs ?? program, ...rest])],
      marker: mounts.marker,
      env: { ...env, HOME: extra.home !== undefined && run.runDir !== undefined && inside(extra.home, run.runDir) ? extra.home : JAIL_HOME, TMPDIR: "/tmp" },
    };
  }
}

const unique = (xs: readonly string[]) => [...new Set(xs)];

/** The marker of a run's jails: its run dir, else (the gate's commands) its workspace. */
export function jailMarkerOf(run: Pick<RunMounts, "runDir" | "workspace">): string {
  return run.runDir ?? run.workspace;
}
const inside = (p: string, dir: string) => resolve(p).startsWith(resolve(dir) + sep);
