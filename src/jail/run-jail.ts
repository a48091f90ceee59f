// One run's jail over its lifetime: every process of the run starts through it; before the first one,
// the run dir and the workspace are handed to the agent's user (a bridge running as root runs its agents
// as an unprivileged uid, identity.ts), and `release` gives the workspace back to its owners once nothing
// of the run will run there again. A run whose agent is the bridge's own user hands over nothing.
import { chmod, lchown, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type Handback, handOver } from "../sandbox/owner.js";
import type { Jail, JailMode, JailNeeds, JailedCommand, RunJail, RunMounts } from "./jail.js";
import { JailRefused, RUN_HOST_HOME } from "./jail.js";
import { cannotReach } from "./policy.js";

/** The jail of one run: its workspace, run dir and socket, plus what each process adds. */
export function forRun(jail: Jail, run: RunMounts): RunJail {
  return new RunJailOf(jail, run);
}

class RunJailOf implements RunJail {
  private ready: Promise<Handback | null> | null = null;

  constructor(
    private readonly jail: Jail,
    private readonly run: RunMounts,
  ) {}

  get mode(): JailMode {
    return this.jail.mode;
  }

  async command(argv: readonly string[], env: Readonly<Record<string, string>>, needs: JailNeeds = {}): Promise<JailedCommand> {
    this.ready ??= this.handOver();
    await this.ready;
    return this.jail.command(argv, env, this.run, needs);
  }

  private async handOver(): Promise<Handback | null> {
    const { user } = this.jail.policy;
    if (this.jail.mode === "none" || user.same) return null;
    const to = { uid: user.uid, gid: user.gid };
    // The task-tool socket: its private dir passable (never listable), the socket the agent's to connect to.
    const socket = this.run.socket;
    if (socket) {
      await chmod(dirname(socket), 0o711);
      await lchown(socket, to.uid, to.gid);
    }
    for (const p of [this.run.workspace, this.run.runDir, ...(socket ? [socket] : [])]) {
      const why = cannotReach(p, user);
      if (why) throw new JailRefused(p, `${why} — what the agent works in must be where its user can reach it`);
    }
    // A jail without bubblewrap has no /tmp and HOME of its own: they are the run's.
    if (this.jail.mode === "user") await mkdir(join(this.run.runDir, RUN_HOST_HOME, "tmp"), { recursive: true, mode: 0o700 });
    // The run dir is the bridge's, made for this run: it is handed over for good (it is removed after the run).
    await handOver(this.run.runDir, to);
    return handOver(this.run.workspace, to);
  }

  async release(): Promise<void> {
    const back = await this.ready?.catch(() => null);
    this.ready = null;
    await back?.restore();
  }
}
