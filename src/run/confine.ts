// What confines one run, set up before its agent starts and undone after the gate: the repository's guard
// (git/guard.ts: its config and hooks read now, read-only in the jail, checked after), the run's jail
// (every process of it starts there; jail/run-jail.ts), its caps (watched while it runs: a cap met stops
// it, named), and its network (network: proxy — the run's own egress proxy, egress/proxy.ts: what it
// refused and what it let through go on the card).
import { outputFiles } from "../agents/cli-agent.js";
import { EgressProxy } from "../egress/proxy.js";
import { JAIL_EGRESS_SOCKET, RELAY_PORT, apiBase, loopbackForwards, proxyEnv, runEgress } from "../egress/plan.js";
import { guardRepository } from "../git/guard.js";
import { capText } from "../jail/limits.js";
import { JAIL_RELAY } from "../jail/relay.js";
import { WorkspaceNested } from "../jail/live.js";
import { type RunJailOf, forRun } from "../jail/run-jail.js";
import type { Decision } from "../result/decision.js";
import { newSocketPath, removeSocketDir } from "../tools/socket-path.js";
import type { Stop } from "./decide.js";
import type { Work } from "./context.js";
import type { Timer } from "./factories.js";
import { repositoryBlock, workspaceNestedBlock } from "./failures.js";

/** How often a running agent's caps are read (the kernel's counters, the jail's /tmp). */
const CAP_POLL_MS = 2000;
const FIRST_LOOK_MS = 500;

export interface Confinement {
  runJail: RunJailOf | undefined;
  /** The CLI's API base inside the jail, when the run's proxy forwards its API. */
  egress: { apiBase: string } | undefined;
  /**
   * Before the agent: the workspace claimed and handed to the agent's user (what was kept as it was goes on the
   * run's record), or the block that says why it cannot be (it nests with a live run's).
   */
  claim(): Promise<Decision | null>;
  /** Once the agent has ended: the caps it met, and what its network did (on the run's record). */
  afterAgent(): Promise<void>;
  /** After the gate: what the run left in its repository that runs code outweighs its result. */
  settle(d: Decision): Promise<Decision>;
  /** The steps that undo it, in the order they were set up (the caller runs them in reverse). */
  cleanup: [string, () => unknown][];
}

export async function confine(
  w: Work,
  o: {
    socket?: string | undefined;
    stop: (why: Stop, detail?: string) => void;
    abort: (why: Error) => void;
    timers: Timer[];
    /** No answer from the kind's API host through the run's proxy (the unreachable watch, reach.ts). */
    unreachable?: ((message: string) => void) | undefined;
    /** The proxy's count of the API route moved (on the run's record by then: the budgets read it). */
    onApiUse?: (() => void) | undefined;
  },
): Promise<Confinement> {
  const { prep, record } = w;
  const facts = record.facts;
  const cleanup: [string, () => unknown][] = [];
  const guard = await guardRepository(prep.ws.local, { git: w.seat.git, privateDir: prep.input.outputDir });
  const proxied = w.seat.jail?.mode === "bwrap" && w.seat.jail.policy.network === "proxy" && w.seat.egress !== undefined;
  let proxy: EgressProxy | null = null;
  let mounts: Parameters<typeof forRun>[1]["egress"];
  let egressInput: Confinement["egress"];
  if (proxied && w.seat.egress) {
    const plan = runEgress(w.seat.egress);
    const socket = newSocketPath({});
    const p = new EgressProxy({
      allow: w.seat.egress.allow,
      routes: plan.routes,
      onBlocked: (host, port, why, r) => w.events.tell("egress_refused", host, port, why, r),
      // The proxy's own log (debug): every name it resolved and every address it opened for this run.
      onTrace: (t) => w.events.tell("log", "debug", `egress: ${t.what}`, { task_id: record.lease.taskId, ...t }),
      onFailed: (host, port, why) => w.events.tell("egress_failed", host, port, why),
      onUnanswered: (host, _port, why) => {
        if (w.seat.egress?.apiHosts.includes(host)) o.unreachable?.(`the run's proxy: ${why}`);
      },
      onApiUse: () => {
        noteEgress();
        o.onApiUse?.();
      },
    });
    await p.listen(socket);
    proxy = p;
    cleanup.push([
      "the run's egress proxy",
      async () => {
        await p.close();
        removeSocketDir(socket);
      },
    ]);
    const env = { ...proxyEnv({ argv: [...JAIL_RELAY], at: JAIL_EGRESS_SOCKET }), ...plan.env };
    mounts = { socket, port: RELAY_PORT, at: JAIL_EGRESS_SOCKET, env, forwards: loopbackForwards(w.seat.egress) };
    egressInput = w.seat.egress.api ? { apiBase: apiBase(w.seat.egress.api.name) } : undefined;
  }
  const runJail = w.seat.jail
    ? forRun(w.seat.jail, {
        workspace: prep.ws.local,
        runDir: prep.input.runDir,
        readOnlyFiles: [prep.input.contextFile, ...(guard?.readOnly ?? [])],
        socket: o.socket,
        egress: mounts,
      })
    : undefined;
  const checks: (() => Promise<unknown>)[] = [];
  if (runJail) {
    cleanup.push(["the workspace's owners", () => runJail.release()]);
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
    cleanup.push(["the caps' watch", () => (watching = false)]);
    checks.push(capHit);
  }
  const noteEgress = () => {
    if (proxy) record.story.egress = proxy.counts();
  };
  checks.push(async () => noteEgress());
  return {
    runJail,
    egress: egressInput,
    claim: async () => {
      try {
        const back = await runJail?.claim();
        const k = back?.kept;
        if (k && k.links + k.foreign + k.devices + k.odd > 0) record.story.kept = k;
        return null;
      } catch (err) {
        if (err instanceof WorkspaceNested) return workspaceNestedBlock(err.message);
        throw err;
      }
    },
    afterAgent: async () => {
      for (const c of checks) await c();
    },
    settle: async (d) => {
      noteEgress();
      if (facts.stop === "lease_lost") return d;
      const found = await guard.check();
      if (found.length === 0) return d;
      await guard.restore();
      facts.repositoryFound = true;
      w.events.tell("log", "warn", "the run left its repository set to run code: restored, the task is blocked", {
        task_id: record.lease.taskId,
        found: found.map((f) => f.what),
      });
      return repositoryBlock(found);
    },
    cleanup,
  };
}
