// The run's cell: what confines one run, opened before its agent starts and released after the gate —
// the repository's guard (git/guard.ts: its config and hooks read now, read-only in the jail, checked
// after), the run's jail (every process of it starts there; jail/run-jail.ts), its caps (watched while it
// runs: a cap met stops it, named), and its network (network: proxy — the run's own egress proxy,
// egress/proxy.ts: what it refused and what it let through go on the card). One object with a lifetime,
// shaped like the held lease (lease/held.ts): `open` (made, its release pushed on the work phase's stack),
// `claim` (the workspace handed to the agent's user), `afterAgent`, `settle` (after the gate), `release`
// (idempotent, last-in-first-out, each step guarded), and typed events.
import { outputFiles } from "../../agents/cli-agent.js";
import { describeError } from "../../errors/index.js";
import { EgressProxy } from "../../egress/proxy.js";
import { JAIL_EGRESS_SOCKET, RELAY_PORT, apiBase, loopbackForwards, proxyEnv, runEgress } from "../../egress/plan.js";
import { type RepositoryGuard, guardRepository } from "../../git/guard.js";
import { capText } from "../../jail/limits.js";
import { NODE_RELAY } from "../../jail/relay.js";
import { WorkspaceNested } from "../../jail/live.js";
import { SharedCopyRefused } from "../../agent-files/unshare.js";
import { HostLockTimeout } from "../../agent-files/host-lock.js";
import { type RunJailOf, forRun } from "../../jail/run-jail.js";
import { Events } from "../../log/emit.js";
import { Releasers } from "../../log/releasers.js";
import type { Decision } from "../../result/decision.js";
import { newSocketPath, removeSocketDir } from "../../tools/socket-path.js";
import { blockFor } from "../blocks/table.js";
import type { Timer, Work } from "../context.js";
import type { RunEvents } from "../events.js";
import type { Stop } from "../record.js";

/** How often a running agent's caps are read (the kernel's counters, the jail's /tmp). */
const CAP_POLL_MS = 2000;
const FIRST_LOOK_MS = 500;

/** What a run's cell tells (the work phase hands it on as the run's own events). */
export interface CellEvents {
  /** The run's proxy refused a destination (network: proxy). */
  egress_refused: RunEvents["egress_refused"];
  /** An allowed host the run's proxy could not reach (once per host:port and run). */
  egress_failed: RunEvents["egress_failed"];
  /** What the proxy did, for the debug log; a step of the release that failed; a repository restored. */
  log: RunEvents["log"];
}

/** What the cell acts on while the agent runs. */
export interface CellHooks {
  /** The task tools' socket, shown in the jail. */
  socket?: string | undefined;
  stop: (why: Stop, detail?: string) => void;
  abort: (why: Error) => void;
  /** The run's timers (cancelled with the stop ladder's scope). */
  timers: Timer[];
  /** No answer from the kind's API host through the run's proxy (the unreachable watch, reach.ts). */
  unreachable?: ((message: string) => void) | undefined;
  /** The proxy's count of the API route moved (on the run's record by then: the budgets read it). */
  onApiUse?: (() => void) | undefined;
}

export class RunCell {
  private readonly events = new Events<CellEvents>();
  private readonly own = new Releasers();
  private readonly checks: (() => Promise<unknown>)[] = [];
  private proxy: EgressProxy | null = null;
  private releasing: Promise<void> | null = null;
  /** The run's jail (every process of the agent starts through it); absent: as they are. */
  runJail: RunJailOf | undefined;
  /** The CLI's API base inside the jail, when the run's proxy forwards its API. */
  egress: { apiBase: string } | undefined;

  private constructor(
    private readonly w: Work,
    private readonly guard: RepositoryGuard,
  ) {}

  /** Opens the cell for `w` (the guard read, the proxy listening, the jail made, the caps watched); its release goes on `scope`. */
  static async open(w: Work, o: CellHooks, scope: Releasers, wire: (cell: RunCell) => void = () => undefined): Promise<RunCell> {
    const { prep } = w;
    const guard = await guardRepository(prep.ws.local, { git: w.seat.git, privateDir: prep.input.outputDir });
    const cell = new RunCell(w, guard);
    wire(cell);
    scope.push("the run's cell", () => cell.release());
    await cell.build(o);
    return cell;
  }

  on<K extends keyof CellEvents>(event: K, listener: (...args: CellEvents[K]) => void): this {
    this.events.on(event, listener as never);
    return this;
  }

  private async build(o: CellHooks): Promise<void> {
    const w = this.w;
    const { prep, record } = w;
    const facts = record.facts;
    const own = this.own;
    const proxied = w.seat.jail?.mode === "bwrap" && w.seat.jail.policy.network === "proxy" && w.seat.egress !== undefined;
    let mounts: Parameters<typeof forRun>[1]["egress"];
    if (proxied && w.seat.egress) {
      const egress = w.seat.egress;
      const plan = runEgress(egress);
      const socket = newSocketPath({});
      const p = new EgressProxy({
        allow: egress.allow,
        routes: plan.routes,
        onBlocked: (host, port, why, r) => this.events.tell("egress_refused", host, port, why, r),
        // The proxy's own log (debug): every name it resolved and every address it opened for this run.
        onTrace: (t) => this.events.tell("log", "debug", `egress: ${t.what}`, { task_id: record.lease.taskId, ...t }),
        onFailed: (host, port, why) => this.events.tell("egress_failed", host, port, why),
        onUnanswered: (host, _port, why) => {
          if (egress.apiHosts.includes(host)) o.unreachable?.(`the run's proxy: ${why}`);
        },
        onApiUse: () => {
          this.noteEgress();
          o.onApiUse?.();
        },
      });
      await p.listen(socket);
      this.proxy = p;
      own.push("the run's egress proxy", async () => {
        await p.close();
        removeSocketDir(socket);
      });
      const env = { ...proxyEnv({ argv: [...NODE_RELAY], at: JAIL_EGRESS_SOCKET }), ...plan.env };
      mounts = { socket, port: RELAY_PORT, at: JAIL_EGRESS_SOCKET, env, forwards: loopbackForwards(egress) };
      this.egress = egress.api ? { apiBase: apiBase(egress.api.name) } : undefined;
    }
    const runJail = w.seat.jail
      ? forRun(w.seat.jail, {
          workspace: prep.ws.local,
          runDir: prep.input.runDir,
          readOnlyFiles: [prep.input.contextFile, ...(this.guard?.readOnly ?? [])],
          socket: o.socket,
          egress: mounts,
        })
      : undefined;
    this.runJail = runJail;
    if (runJail) {
      own.push("the workspace's owners", () => runJail.release());
      // A cap the run meets (agent.limits) stops it and names the cap; checked while it runs and once after.
      const stream = outputFiles(prep.input.outputDir).stdout;
      const capHit = async () => {
        const cap = await runJail.exceeded().catch(() => null);
        if (cap && facts.stop === null) {
          o.stop("cap", capText(cap, runJail.limits));
          o.abort(new Error(`cap: ${cap}`));
        }
        // The CLI's stream held by a process not run from an execute-only copy (a shim's real program): the
        // run's word could be anyone's in the jail — stopped.
        const exposed = facts.stop === null ? await runJail.streamExposed(stream).catch(() => null) : null;
        if (exposed) {
          o.stop("exposed", exposed);
          o.abort(new Error(`the CLI's stream is exposed: ${exposed}`));
        }
        return cap;
      };
      let watching = true;
      const watch = (ms = CAP_POLL_MS) => {
        if (watching) o.timers.push(w.seat.make.timer(w.seat.clock.now() + ms, () => void capHit().then(() => watch())));
      };
      // The first look soon after the start (a shim has exec'd its program by then), then every CAP_POLL_MS.
      watch(FIRST_LOOK_MS);
      own.push("the caps' watch", () => {
        watching = false;
      });
      this.checks.push(capHit);
    }
    this.checks.push(async () => this.noteEgress());
  }

  private noteEgress(): void {
    if (this.proxy) this.w.record.story.egress = this.proxy.counts();
  }

  /**
   * Before the agent: the workspace claimed and handed to the agent's user (what was kept as it was goes on the
   * run's record), or the block that says why it cannot be (it nests with a live run's).
   */
  async claim(): Promise<Decision | null> {
    try {
      const back = await this.runJail?.claim();
      const k = back?.kept;
      if (k && k.links + k.foreign + k.devices + k.odd + (k.copied ?? 0) > 0) this.w.record.story.kept = k;
      return null;
    } catch (err) {
      if (err instanceof WorkspaceNested) return blockFor("workspace_nested", err.message);
      if (err instanceof SharedCopyRefused) return blockFor("workspace_shared", err);
      if (err instanceof HostLockTimeout) return blockFor("host_lock", err.message);
      throw err;
    }
  }

  /** Once the agent has ended: the caps it met, and what its network did (on the run's record). */
  async afterAgent(): Promise<void> {
    for (const c of this.checks) await c();
  }

  /** After the gate: what the run left in its repository that runs code outweighs its result. */
  async settle(d: Decision): Promise<Decision> {
    const { record } = this.w;
    this.noteEgress();
    if (record.facts.stop === "lease_lost") return d;
    const found = await this.guard.check();
    if (found.length === 0) return d;
    await this.guard.restore();
    record.facts.repositoryFound = true;
    this.events.tell("log", "warn", "the run left its repository set to run code: restored, the task is blocked", {
      task_id: record.lease.taskId,
      found: found.map((f) => f.what),
    });
    return blockFor("repository", found);
  }

  /** Undoes the cell: the caps' watch, the workspace's owners, the proxy (last in, first out; each step guarded). Idempotent. */
  release(): Promise<void> {
    this.releasing ??= this.own
      .releaseAll((name, err) => this.events.tell("log", "warn", `cleanup of ${name} failed`, { task_id: this.w.record.lease.taskId, err: describeError(err) }))
      .then(() => undefined);
    return this.releasing;
  }
}
