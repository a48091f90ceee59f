// The agent's jail (agent.isolation): every agent process — a command agent, the Claude Code and Codex
// CLIs, the local loop's run_command, the gate's verification commands — starts inside bubblewrap with
// its own user, pid, ipc and uts namespaces, as an unprivileged host uid (identity.ts), the system
// read-only, a read-only /proc/sys, its workspace and its run dir writable at their real paths, the
// task-tool socket, a fresh /tmp (bounded) and HOME — and nothing of the bridge: not its /proc,
// environment, HOME, config, state dir, other workspaces or any Hermes home. Every path it is shown
// beyond the system passes the forbidden-roots check first (policy.ts): the program, Node, the bridge's
// task-tools server and the operator's extras alike. `user` runs the agent as that unprivileged uid
// without bubblewrap (engines that cannot relax /proc); `none` runs processes as they are. Both are said
// loudly (start log, doctor, status, fleet, every card).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { PermanentError } from "../errors/index.js";
import { JAIL_HOME, type JailMounts, type SystemLayout, bwrapArgs } from "./bwrap.js";
import { systemLayout } from "./system.js";
import { NODE_RELAY, QUIET_DEBUG, relativeLoad, relayEnv, relayShown, withImport } from "./relay.js";
import type { SharedPolicy } from "../agent-files/unshare.js";
import type { AgentUser } from "./identity.js";
import { ExecOnlyImages, ImageUnavailable } from "./image-cache.js";
import { programMounts, resolveProgram } from "./program.js";
import { stageFor } from "./stage.js";
import { type LimitsPolicy, rlimitArgv } from "./limits.js";
import { type ForbiddenRoots, forbiddenWhy } from "./roots.js";

export type JailMode = "bwrap" | "user" | "none";

export interface JailPolicy {
  mode: JailMode;
  /** Why this mode (the probe's answer, or the config). */
  why: string;
  /** The bwrap program (absolute). */
  bwrap: string;
  network: "proxy" | "host" | "none";
  /** Operator extras (agent.isolation.readOnly / readWrite), already checked against the forbidden roots. */
  readOnly: readonly string[];
  readWrite: readonly string[];
  /** Where the jail keeps its passwd/group files (a dir of the state dir). */
  dir: string;
  /** Who the agent is on the host (never root). */
  user: AgentUser;
  /** What no mount may show (every program and tool mount is checked against it). */
  forbidden: ForbiddenRoots;
  /** The jail's /tmp, bytes (agent.limits.tmpMiB); unset: unbounded. */
  tmpBytes?: number | undefined;
  /** The run's caps (agent.limits): how they are enforced here. */
  limits?: LimitsPolicy | undefined;
  /**
   * setpriv (absolute), when the host has it: every jail's first process gets the parent-death signal from
   * it — after the uid switch, which would clear it — so that a bridge killed while a jail is still being
   * set up (bubblewrap arms its own only once its namespaces exist) takes the jail with it.
   */
  setpriv?: string | null | undefined;
  /** The jail's system-call filter (seccomp.ts), a file of the state dir's jail folder; null on an architecture without one. */
  seccomp?: string | null | undefined;
  /** Where the execute-only copies of the CLIs' images are kept (images.ts; agent.isolation.imageCache, a forbidden root). */
  imageCache?: string | undefined;
  /** A workspace's files with a name outside it, when the agent is the bridge's own user (agent-files/unshare.ts; unset: copy, 1 GiB). */
  shared?: SharedPolicy | undefined;
  /** The host's registry of workspaces handed over (jail/registry.ts; unset: its default). */
  registry?: string | undefined;
  relay?: readonly string[] | undefined; // the jail's first process (relay.ts jailRelay; unset: the Node one)
}

/** What one run shows its agent (besides the system and the operator's extras). */
export interface RunMounts {
  workspace: string;
  /** The run's own dir: its jails are named by it (their marker); shown to the agent unless a command asks `withoutRunDir`. */
  runDir: string;
  /** Files inside the run dir the agent may read but not change (the note inbox, its context). */
  readOnlyFiles?: readonly string[];
  /** The task-tool socket. */
  socket?: string | undefined;
  /** The run's egress (network: proxy): its proxy's socket, the jail's port the relay (JAIL_RELAY) carries to it, and what
   *  the jail's environment gets (the proxy's variables, the CLI's API base, its keys' placeholders). */
  egress?:
    | {
        socket: string;
        port: number;
        at: string;
        env: Readonly<Record<string, string>>;
        /** Host loopback ports the seat allows: the relay listens on each at the same address in the jail. */
        forwards?: readonly string[] | undefined;
      }
    | undefined;
}

/** The process as it must be started: argv, environment (HOME and TMPDIR its own) and the host uid it runs as. */
export interface JailedCommand {
  argv: string[];
  env: Record<string, string>;
  /** Names the jail's processes (bwrap.ts): what is left of it once its process ended is found and killed by it. Unset without a jail. */
  marker?: string;
  /** The host uid and gid to start it as (the agent's user); unset: the bridge's own. */
  uid?: number;
  gid?: number;
  /**
   * Sources the agent's uid cannot reach by path, to be bound at their staged paths before bubblewrap runs
   * (a bridge running as root: limits.ts wraps the command) — and the folder holding those paths, removed
   * after the run.
   */
  stage?: { dir: string; binds: readonly (readonly [string, string])[] };
  /** Files the process gets as descriptors 3, 4, … (RunOptions.inheritFiles): the jail's seccomp filter. */
  files?: string[];
  /**
   * The descriptor (after `files`) the process's stdout must be given on (RunOptions.streamFd): inside the jail
   * it becomes the program's stdout and no other process's — bubblewrap's init and the relay keep stdio 1 and 2,
   * which get the stderr. Set for a command that asked for its own stream (JailNeeds.ownStream).
   */
  streamFd?: number;
  /**
   * The descriptor (after the stream's, or the files') the process must get a socket on whose other end only the
   * bridge holds (RunOptions.lifelineFd): the jail's relay starts the program after the bridge's first byte there,
   * and ends the jail when it reads end of file. Set for every command in a bubblewrap jail.
   */
  lifelineFd?: number;
}

/** What one kind's process needs besides the run's own paths. */
export interface JailNeeds {
  /** Its program's other parts, the bridge's task-tools server (Node, the package). */
  readOnly?: readonly string[];
  /** Files of the run dir it may read but not change (its MCP config, the note inbox). */
  readOnlyOver?: readonly string[];
  /** A folder of the run dir that is its HOME (Codex: the run's own skills), instead of the jail's fresh one. */
  home?: string;
  /** The gate's commands: the run's marker and HOME, but not its dir (they only need the workspace). */
  withoutRunDir?: boolean;
  /**
   * The process's stdout is the CLI's stream (the bridge reads it as the CLI's word): it gets a descriptor only
   * the program holds (JailedCommand.streamFd), and the program's images are shown execute-only (images.ts).
   */
  ownStream?: boolean;
  /** More images of the program's, shown execute-only with its own (a native binary its launcher script starts). */
  images?: readonly string[];
}

/**
 * A run's jail: wraps each process the agent starts; `needs` are the kind's own (its program, its tools).
 * The first command hands the run dir and the workspace to the agent's user (a bridge running as root);
 * `release` gives the workspace back once nothing of the run will run there again (after the gate).
 */
export interface RunJail {
  readonly mode: JailMode;
  command(argv: readonly string[], env: Readonly<Record<string, string>>, needs?: JailNeeds): Promise<JailedCommand>;
  release(): Promise<void>;
}

/** A path the jail will not show the agent (inside or above a forbidden root, the bridge's HOME itself). */
export class JailRefused extends PermanentError {
  constructor(
    readonly path: string,
    readonly why: string,
  ) {
    super("jail_refused", `the agent's jail may not show ${path}: ${why}`);
  }
}

/** The run dir's folder that is HOME for a jail without bubblewrap (mode user): the jail's own /tmp/home is not there. */
export const RUN_HOST_HOME = "host-home";

export class Jail {
  private readonly system: SystemLayout;
  private readonly passwd: string;
  private readonly group: string;
  /** The execute-only copies of the CLIs' images (bubblewrap jails only). */
  readonly images: ExecOnlyImages | null;

  constructor(
    readonly policy: JailPolicy,
    o: { onImageCopied?: (image: string, bytes: number, ms: number) => void } = {},
  ) {
    this.system = policy.mode === "bwrap" ? systemLayout() : { tops: {}, etc: [], proc: { readOnly: [], hiddenFiles: [], hiddenDirs: [] } };
    this.passwd = join(policy.dir, "passwd");
    this.group = join(policy.dir, "group");
    if (policy.mode === "bwrap") this.writeIdentity();
    this.images = policy.mode === "bwrap" && policy.imageCache ? new ExecOnlyImages(policy.imageCache, { onCopied: o.onImageCopied }) : null;
  }

  get mode(): JailMode {
    return this.policy.mode;
  }

  /** One passwd and group line for the agent's uid (programs that look themselves up find a name and HOME). */
  private writeIdentity(): void {
    const { uid, gid, name } = this.policy.user;
    mkdirSync(this.policy.dir, { recursive: true, mode: 0o711 });
    writeFileSync(this.passwd, `${name}:x:${uid}:${gid}:agent:${JAIL_HOME}:/bin/sh\n`, { mode: 0o644 });
    writeFileSync(this.group, `${name}:x:${gid}:\n`, { mode: 0o644 });
  }

  /** Throws JailRefused for a path no agent may see; the paths, unchanged, otherwise. */
  private checked(paths: readonly string[]): string[] {
    for (const p of paths) {
      const why = forbiddenWhy(p, this.policy.forbidden);
      if (why) throw new JailRefused(p, why);
    }
    return [...paths];
  }

  /**
   * `execOnly`: the execute-only copies (images.ts) to bind over the program's images, each [copy, real path]
   * (run-jail.ts makes them; only for a command with its own stream).
   */
  command(
    argv: readonly string[],
    env: Readonly<Record<string, string>>,
    run: RunMounts,
    extra: JailNeeds = {},
    execOnly: readonly (readonly [string, string])[] = [],
  ): JailedCommand {
    const { user } = this.policy;
    const as = user.same ? {} : { uid: user.uid, gid: user.gid };
    if (this.mode === "none") return { argv: [...argv], env: { ...env } };
    const marker = run.runDir;
    if (this.mode === "user") {
      // No namespaces: only the uid keeps the agent from the bridge's files and processes.
      const home = join(run.runDir, RUN_HOST_HOME);
      return { argv: [...argv], env: { ...env, HOME: extra.home ?? home, TMPDIR: join(home, "tmp") }, ...as };
    }
    const [program = "", ...rest] = argv;
    const loads = relativeLoad(env.NODE_OPTIONS);
    if (loads !== null)
      throw new JailRefused(
        loads,
        "NODE_OPTIONS loads it by a path that is not absolute, found from the agent's workspace (which the agent writes): give its absolute path",
      );
    const abs = resolveProgram(program, env.PATH, run.workspace);
    // A Node process holding the stream answers SIGUSR1 with nothing, not with its debugger (quiet-debug.mts):
    // for every command with its own stream, whatever its program is called (other programs ignore it).
    const quiet = extra.ownStream && existsSync(QUIET_DEBUG) ? [QUIET_DEBUG] : [];
    const readOnly = this.checked([...(abs ? programMounts(abs) : []), ...(extra.readOnly ?? []), ...quiet]);
    const hide = extra.withoutRunDir === true;
    const runDir = hide ? [] : [run.runDir];
    const readWrite = [run.workspace, ...runDir, ...(run.socket ? [run.socket] : []), ...this.policy.readWrite];
    // The relay runs first (pid 2 under bubblewrap's init; prlimit before it, limits.mode rlimit), then the program
    // as its child: it holds the lifeline, ends the jail when the bridge is gone, and carries its network to the proxy.
    const egress = this.policy.network === "proxy" ? run.egress : undefined;
    const relay = this.policy.relay ?? NODE_RELAY;
    const relayMounts = this.checked([...relayShown(relay).files, ...rlimitArgv(this.policy.limits).slice(0, 1)].filter((p) => p[0] === "/"));
    const mounts: JailMounts = {
      readOnly: unique([...readOnly, ...relayMounts, ...this.policy.readOnly].filter((p) => existsSync(p))),
      readWrite: unique(readWrite.filter((p) => existsSync(p))),
      readOnlyOver: [...(hide ? [] : (run.readOnlyFiles ?? [])), ...(extra.readOnlyOver ?? [])].filter((p) => existsSync(p)),
      passwd: this.passwd,
      group: this.group,
      network: this.policy.network,
      egress: egress ? { socket: egress.socket, at: egress.at } : undefined,
      tmpBytes: this.policy.tmpBytes,
      seccompFd: this.policy.seccomp ? 3 : undefined,
      execOnly: execOnly.filter(([copy, at]) => {
        this.checked([at]);
        // Fail closed: a copy gone between its check and now (collected by another seat) is no run without it.
        if (!existsSync(copy)) throw new ImageUnavailable(at, this.policy.imageCache ?? "", new Error("its execute-only copy is gone"));
        return true;
      }),
      cwd: run.workspace,
      marker,
    };
    const home = extra.home !== undefined && !hide && inside(extra.home, run.runDir) ? extra.home : JAIL_HOME;
    const stage = user.same ? undefined : stageFor(mounts, user);
    const files = this.policy.seccomp ? [this.policy.seccomp] : [];
    // Its own stream: on the descriptor after the files, made the program's stdout by the relay, so that no
    // other process of the jail holds it. The lifeline: the descriptor after those (the bridge holds its other end).
    const streamFd = extra.ownStream ? 3 + files.length : undefined;
    const lifelineFd = 3 + files.length + (streamFd === undefined ? 0 : 1);
    const network = egress ? [String(egress.port), egress.at, ...(egress.forwards ?? []).flatMap((f) => ["--forward", f])] : ["--no-network"];
    const stream = streamFd === undefined ? [] : ["--stream", String(streamFd)];
    const started = [...rlimitArgv(this.policy.limits), ...relay, ...network, ...stream, "--lifeline", String(lifelineFd), "--", abs ?? program, ...rest];
    return {
      argv: [this.policy.bwrap, ...bwrapArgs(stage ? { ...mounts, via: Object.fromEntries(stage.binds) } : mounts, this.system, started)],
      marker,
      env: {
        ...relayEnv({ ...env, ...(egress?.env ?? {}) }, quiet.length ? withImport(env.NODE_OPTIONS, QUIET_DEBUG) : env.NODE_OPTIONS),
        HOME: home,
        TMPDIR: "/tmp",
      },
      ...as,
      ...(stage?.binds.length ? { stage } : {}),
      ...(files.length ? { files } : {}),
      ...(streamFd !== undefined ? { streamFd } : {}),
      lifelineFd,
    };
  }
}

const unique = (xs: readonly string[]) => [...new Set(xs)];

/** The runner's options for a jailed command (RunOptions): what it runs as, its marker and its descriptors. */
export const launchOf = (c: JailedCommand) => ({
  argv: c.argv,
  env: c.env,
  uid: c.uid,
  gid: c.gid,
  jailMarker: c.marker,
  inheritFiles: c.files,
  streamFd: c.streamFd,
  lifelineFd: c.lifelineFd,
});

const inside = (p: string, dir: string) => resolve(p).startsWith(resolve(dir) + sep);
