// One run's jail over its lifetime: every process of the run starts through it. Before the first one (made
// beside the workspace's claim, so that no command waits for it), the run's caps get a group of their own
// (jail/limits.ts), the run dir and the workspace go to the agent's user (a root bridge's is an unprivileged
// uid, identity.ts; a plain bridge's is itself: shared files get private copies, agent-files/unshare.ts).
// Every command is then wrapped: into the group, in the jail, as that user. `exceeded` says which cap the run
// met; `release` removes the group and gives the workspace back once nothing of the run will run there again.
import { readlinkSync } from "node:fs";
import { chmod, lchown, mkdir, readdir, realpath, rm, stat, statfs } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { jailProcesses, jailTree } from "../process/terminate.js";
import { type Handback, handOver } from "../agent-files/owner.js";
import { sharedLinks } from "../agent-files/unshare.js";
import { defaultWorkspaceRegistry } from "./registry.js";
import { type WorkspaceHost, claimWorkspace, releaseWorkspace } from "./live.js";
import type { Jail, JailMode, JailNeeds, JailedCommand, RunJail, RunMounts } from "./jail.js";
import { JailRefused, RUN_HOST_HOME } from "./jail.js";
import { NODE_RELAY, relayShown } from "./relay.js";
import { programImages, reachedBy } from "./images.js";
import { programMounts, resolveProgram } from "./program.js";
import { RunCgroup, capped } from "./limits.js";
import { cannotReach } from "./policy.js";

/** The cap a run met: its memory, its processes, its /tmp. */
export type Cap = "memory" | "pids" | "tmp";

/**
 * The host's registry of workspaces handed over, as `jail`'s seat uses it; without namespaces (isolation
 * user) the agent's processes are its uid's (a jail's are found by its marker).
 */
export const workspaceHost = (jail: Jail): WorkspaceHost => ({
  registry: jail.policy.registry ?? defaultWorkspaceRegistry(process.env),
  uid: jail.mode === "user" ? jail.policy.user.uid : null,
});

/** The jail of one run: its workspace, run dir and socket, plus what each process adds. */
export function forRun(jail: Jail, run: RunMounts): RunJailOf {
  return new RunJailOf(jail, run);
}

const ownNs = (ns: "mnt" | "pid") => {
  try {
    return readlinkSync(`/proc/self/ns/${ns}`);
  } catch {
    return null;
  }
};
const ownMountNs = ownNs("mnt");
const ownPidNs = ownNs("pid");

/**
 * What was seen at which of a series of looks: a thing is let be at the look that first sees it, and only
 * within the first `window` looks (the launch); later, or seen again at a later look, it is named.
 */
export class Sightings {
  private readonly first = new Map<string, number>();
  private look = 0;

  constructor(private readonly window = 2) {}

  nextLook(): void {
    this.look += 1;
  }

  /** Whether `key` is past its grace: seen at an earlier look, or first seen after the window (it is remembered as seen now). */
  seenBefore(key: string): boolean {
    const at = this.first.get(key) ?? this.look;
    this.first.set(key, at);
    return at < this.look || this.look > this.window;
  }
}

export class RunJailOf implements RunJail {
  private ready: Promise<{ group: RunCgroup | null; back: Handback | null }> | null = null;
  private runReady: Promise<void> | null = null;
  /** The workspace's claim (before the agent: run/work/cell.ts), the caps' group made beside it (prepared ahead). */
  private claimed: Promise<Handback | null> | null = null;
  /** The caps' group, made beside the workspace's hand-over: ready before the first command asks for it. */
  private group: Promise<RunCgroup | null> | null = null;
  /** The staging folders the run's commands used (jail.ts), removed with the run. */
  private readonly stages: string[] = [];
  /** The execute-only copies the run's commands run from: what a stream holder's image must be. */
  private readonly copies = new Map<string, { dev: number; ino: number }>();
  /** Holders of the stream seen running the jail's own launch chain. */
  private readonly launching = new Sightings();

  constructor(
    private readonly jail: Jail,
    private readonly run: RunMounts,
  ) {}

  get mode(): JailMode {
    return this.jail.mode;
  }

  /**
   * The workspace claimed for the run (jail/live.ts: refused when it nests with a live run's) and handed to
   * the agent's user: what the hand-over kept as it was (hard links out of it) is on the handback.
   */
  claim(): Promise<Handback | null> {
    this.claimed ??= this.handOver();
    this.groupMade();
    return this.claimed;
  }

  /** The run's caps group (agent.limits.mode cgroup), made once; its failure is the first command's (or nobody's: release). */
  private groupMade(): Promise<RunCgroup | null> {
    if (!this.group) {
      const limits = this.jail.policy.limits;
      this.group = limits?.mode === "cgroup" && limits.roots ? RunCgroup.create(limits.roots, this.unit, limits.caps) : Promise.resolve(null);
      this.group.catch(() => undefined);
    }
    return this.group;
  }

  /** The run's caps, as this host enforces them. */
  get limits() {
    return this.jail.policy.limits;
  }

  private get unit(): string {
    return `hkb-${basename(this.run.runDir)}`.replace(/[^A-Za-z0-9_.-]/g, "_");
  }

  async command(argv: readonly string[], env: Readonly<Record<string, string>>, needs: JailNeeds = {}): Promise<JailedCommand> {
    this.ready ??= this.prepare();
    const { group } = await this.ready;
    // What the run made for its agent before its first command (its CLI home, sockets) is handed over with the run dir then.
    this.runReady ??= this.handOverRun();
    await this.runReady;
    const jc = this.jail.command(argv, env, this.run, needs, await this.execOnly(argv, env, needs));
    if (jc.stage) this.stages.push(jc.stage.dir);
    const as = jc.uid !== undefined && jc.gid !== undefined ? { uid: jc.uid, gid: jc.gid } : null;
    const setpriv = this.jail.policy.setpriv;
    const dieWith = setpriv && this.jail.mode !== "none" ? { setpriv, parent: process.pid } : null;
    const w = capped(jc.argv, {
      policy: this.jail.policy.limits,
      group,
      unit: this.unit,
      as,
      binds: jc.stage?.binds,
      dieWith,
      setpriv,
      jailed: this.jail.mode === "bwrap",
    });
    const { uid: _uid, gid: _gid, ...rest } = jc;
    return w.switched ? { ...rest, argv: w.argv } : { ...jc, argv: w.argv };
  }

  /** A command with its own stream runs from execute-only copies of its images (images.ts): [copy, real path] each. */
  private async execOnly(argv: readonly string[], env: Readonly<Record<string, string>>, needs: JailNeeds): Promise<(readonly [string, string])[]> {
    const images = this.jail.images;
    if (!needs.ownStream || !images) return [];
    // The relay starts the program and holds the stream until then (and carries its API traffic, network: proxy): it runs from a copy too.
    const extra = [...new Set([...(needs.images ?? []), ...relayShown(this.jail.policy.relay ?? NODE_RELAY).images])];
    const named = await Promise.all(extra.map(async (p) => ({ image: await realpath(p).catch(() => ""), at: [p] })));
    const all = [
      ...programImages(argv[0] ?? "", env.PATH, this.run.workspace),
      ...named.filter((n) => n.image !== "").map((n) => ({ ...n, at: [n.image, ...n.at] })),
    ];
    // Each image copied once, bound at every path it may be reached by (a shown folder that is a link reaches it below itself).
    const abs = resolveProgram(argv[0] ?? "", env.PATH, this.run.workspace);
    const shown = abs ? programMounts(abs) : [];
    const copies = new Map(await Promise.all([...new Set(all.map((a) => a.image))].map(async (i) => [i, await images.copyOf(i)] as const)));
    for (const copy of copies.values()) {
      const st = await stat(copy);
      this.copies.set(copy, { dev: st.dev, ino: st.ino });
    }
    const pairs = all.flatMap(({ image, at }) => [...at, ...reachedBy(image, shown)].map((p) => [p, [copies.get(image) ?? "", p] as const] as const));
    return [...new Map(pairs).values()];
  }

  private async prepare(): Promise<{ group: RunCgroup | null; back: Handback | null }> {
    const [back, group] = await Promise.all([this.claim(), this.groupMade()]);
    return { group, back };
  }

  /** The host's registry of workspaces handed over, and who the agent is there. */
  private get host(): WorkspaceHost {
    return workspaceHost(this.jail);
  }

  private async handOver(): Promise<Handback | null> {
    if (this.jail.mode === "none") return null;
    const { user } = this.jail.policy;
    const to = { uid: user.uid, gid: user.gid };
    const hand = () => (user.same ? sharedLinks(this.run.workspace, this.jail.policy.shared) : handOver(this.run.workspace, to));
    return claimWorkspace(this.run.workspace, this, { ...this.host, hand, seat: dirname(this.jail.policy.dir) });
  }

  /** What is the run's own (its sockets, its run dir): the agent's for good (the run dir is removed after the run). */
  private async handOverRun(): Promise<void> {
    const { user } = this.jail.policy;
    if (this.jail.mode === "none" || user.same) return;
    const to = { uid: user.uid, gid: user.gid };
    // The task-tool and egress sockets: their private dirs passable (never listable), the sockets the agent's to connect to.
    const sockets = [this.run.socket, this.run.egress?.socket].filter((s): s is string => s !== undefined);
    for (const socket of sockets) {
      await chmod(dirname(socket), 0o711);
      await lchown(socket, to.uid, to.gid);
    }
    // Without bubblewrap (mode user) nothing can be staged: the agent's uid must reach them by path.
    if (this.jail.mode === "user")
      for (const p of [this.run.workspace, this.run.runDir, ...sockets]) {
        const why = cannotReach(p, user);
        if (why) throw new JailRefused(p, `${why} — what the agent works in must be where its user can reach it`);
      }
    // A jail without bubblewrap has no /tmp and HOME of its own: they are the run's.
    if (this.jail.mode === "user") await mkdir(join(this.run.runDir, RUN_HOST_HOME, "tmp"), { recursive: true, mode: 0o700 });
    // The run dir is the bridge's, made for this run: it is handed over for good (it is removed after the run).
    await handOver(this.run.runDir, to);
  }

  /** The processes of the run's jail: its group's (bounded by its pids cap), else those its marker names. */
  private async processes(group: RunCgroup | null): Promise<number[]> {
    return group ? group.members() : jailProcesses(this.run.runDir);
  }

  /**
   * A process of the run's jail (its own pid namespace) that holds `stream` (the CLI's output file) and
   * runs from an image that is none of the run's execute-only copies — a shim that started the real
   * program, which any process of the jail could then write into — named, or null. (The relay that
   * starts the program holds it until then: its Node runs from a copy.) A process the bridge
   * cannot look into (not dumpable, another uid's) is one no process of the jail can reach either.
   */
  async streamExposed(stream: string): Promise<string | null> {
    if (this.jail.mode !== "bwrap" || this.copies.size === 0) return null;
    const file = await stat(stream).catch(() => null);
    if (!file) return null;
    this.launching.nextLook();
    // The launch chain holds the stream for a moment before any of the run's code runs (on a busy machine,
    // past the first look): bubblewrap in the jail before its init dropped it, prlimit (limits.mode rlimit),
    // /usr/bin/env of a `#!/usr/bin/env node` CLI before it execs. A holder running one is let be at the look
    // that first sees it, within the first two (0.5 and 2.5 s), and named at any later one.
    const chain = [this.jail.policy.bwrap, this.jail.policy.limits?.prlimit, "/usr/bin/env"];
    const launch = await Promise.all(chain.map((p) => (p ? stat(p).catch(() => null) : null)));
    const same = (a: { dev: number; ino: number } | null | undefined, b: { dev: number; ino: number }) => !!a && a.dev === b.dev && a.ino === b.ino;
    for (const pid of jailTree(this.run.runDir)) {
      try {
        if (readlinkSync(`/proc/${pid}/ns/pid`) === ownPidNs) continue; // bubblewrap outside the jail
        const fds = await readdir(`/proc/${pid}/fd`);
        const holds = await Promise.all(
          fds.map((fd) =>
            stat(`/proc/${pid}/fd/${fd}`).then(
              (s) => s.dev === file.dev && s.ino === file.ino,
              () => false,
            ),
          ),
        );
        if (!holds.some(Boolean)) continue;
        const exe = await stat(`/proc/${pid}/exe`);
        if ([...this.copies.values()].some((c) => c.dev === exe.dev && c.ino === exe.ino)) continue;
        if (launch.some((l) => same(l, exe)) && !this.launching.seenBefore(`${pid}:${exe.ino}`)) continue;
        return `${readlinkSync(`/proc/${pid}/exe`)} (pid ${pid})`;
      } catch {
        // gone meanwhile, or not ours to look into
      }
    }
    return null;
  }

  /** The cap the run met so far, or null: the kernel enforced memory or pids, or the jail's /tmp is full. */
  async exceeded(): Promise<Cap | null> {
    if (!this.ready) return null;
    const { group } = await this.ready.catch(() => ({ group: null }));
    const limits = this.jail.policy.limits;
    const pids = await this.processes(group);
    const scope = limits?.mode === "systemd" && pids[0] !== undefined ? RunCgroup.ofProcess(pids[0], "/sys/fs/cgroup") : null;
    const hit = (await (group ?? scope)?.hit()) ?? null;
    if (hit) return hit;
    if (this.jail.mode !== "bwrap" || this.jail.policy.tmpBytes === undefined) return null;
    // The jail's /tmp, seen through the processes inside its mount namespace (the outer ones — a staging
    // wrapper's namespace — still see the host's /tmp, which is not the jail's to fill).
    for (const pid of pids) {
      try {
        if (readlinkSync(`/proc/${pid}/ns/mnt`) === ownMountNs) continue;
        const st = await statfs(`/proc/${pid}/root/tmp`);
        if (st.bavail === 0 && st.blocks > 0) return "tmp";
      } catch {
        // gone meanwhile
      }
    }
    return null;
  }

  async release(): Promise<void> {
    await this.ready?.catch(() => null);
    // The group whether or not a command ran (it is made with the workspace's claim).
    const group = await this.group?.catch(() => null);
    await this.runReady?.catch(() => undefined);
    const claimed = this.claimed ? await this.claimed.then(() => true).catch(() => false) : false;
    this.ready = null;
    this.runReady = null;
    this.claimed = null;
    this.group = null;
    await group?.remove();
    for (const dir of this.stages.splice(0)) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    // Another run still working in the same workspace (a `dir:` two seats share) keeps it: the last one to end gives it back.
    if (claimed) await releaseWorkspace(this, this.host);
  }
}
