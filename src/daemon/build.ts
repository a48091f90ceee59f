// Composition root: config → the seat's settings, boards (redacting), agent (loaded on demand), outbox, alerts, closer, workspaces, git, journal, factories.
import { Jail } from "../jail/jail.js";
import { cannotReach, forbiddenRoots, imageCacheOf, resolvePolicy } from "../jail/policy.js";
import { defaultWorkspaceRegistry } from "../jail/registry.js";
import type { AgentUser } from "../jail/identity.js";
import { egressPlan } from "../egress/plan.js";
import { postureOnce } from "./posture.js";
import { shareOf } from "./share.js";
import type { Claim, ClaimCheck } from "../agents/probe.js";
import { passableStateDir } from "../state/dir.js";
import { ConfigError } from "../errors/index.js";
import { UsageLedger } from "../state/ledger.js";
import { appendFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { agentEnv } from "../agents/env.js";
import { AGENT_KINDS, type AgentKind, createAgent, kindOf, promptFileFor, seatImages } from "../agents/kinds.js";
import { handbacksAtStart, imagesAtStart, seatLimits } from "./isolation.js";
import { callTimes, runSettings, seatSettings, skillRoots, workspaceSettings } from "./seat-settings.js";
import type { AgentAdapter } from "../agents/port.js";
import { type Board, type CliCallRecord, HermesCliBoard, defaultShareDir } from "../board/index.js";
import { RedactingBoard } from "../board/redacting.js";
import { sshSplit } from "../board/remote.js";
import type { RetryPolicy } from "../board/retry.js";
import { bundledFile } from "../config/paths.js";
import type { Config, OpsConfig } from "../config/schema.js";
import { SessionJournal } from "../continuity/journal.js";
import type { Logger } from "../log/logger.js";
import type { Metrics } from "../observe/metrics.js";
import { HERMES_ALL, pickEnv } from "../process/env.js";
import { AlertSender } from "../outbox/alerts.js";
import { Closer, markAlert } from "../outbox/closer.js";
import { Outbox } from "../outbox/outbox.js";
import { WebhookAlerter } from "../outbox/webhook.js";
import { Redactor } from "../result/redact.js";
import type { UploadSpec } from "../run/context.js";
import { defaultFactories } from "../run/work/factories.js";
import { loadTemplate } from "../run/prepare/prompt.js";
import { systemClock, type Clock } from "../time/clock.js";
import { type GitRunner, hardenedGit } from "../git/runner.js";
import { LocalWorkspaces } from "../workspace/resolve.js";
import { ActiveRuns } from "./active-runs.js";
import { BoardConditions } from "./board-health.js";
import type { RunServices } from "./launcher.js";
import { statePath } from "../state/layout.js";

export interface Ops {
  /** Every board behind the redacting boundary (board/redacting.ts). */
  boards: Board[];
  outbox: Outbox;
  alerts: AlertSender;
  closer: Closer;
  redactor: Redactor;
  /** Kept only when they can be read (`http.port` set): prom-client is not loaded otherwise. */
  metrics: Metrics | undefined;
  /** How each board's calls reach the CLI now (status shows it). */
  transports: Map<string, { mode: "server" | "process"; why: string }>;
  /** Stops what the boards keep running between calls (their call servers). */
  closeBoards(): Promise<void>;
  /** Boards whose database is corrupt: paused, alerted once, resumed when they answer (board-health.ts). */
  conditions: BoardConditions;
}

export interface Built extends Ops, Omit<RunServices, "metrics"> {
  /** The agent kinds this seat knows (restart recovery asks them for their stop signal). */
  kinds: readonly AgentKind[];
  agent: AgentAdapter;
}

/** The retry policy of board calls, from config. */
export function retryPolicy(c: OpsConfig): RetryPolicy {
  return {
    retries: c.hermes.retry.retries,
    minDelayMs: c.hermes.retry.minDelayMs,
    maxDelayMs: c.hermes.retry.maxDelayMs,
    deadlineMs: callTimes(c).retryDeadlineMs,
  };
}

/** The redactor of everything that leaves the bridge: secrets, and the state dir's path. */
export function redactorFor(c: OpsConfig, env: NodeJS.ProcessEnv): Redactor {
  const paths: Record<string, string> = { [c.stateDir]: "<state dir>" };
  try {
    paths[realpathSync(c.stateDir)] = "<state dir>";
  } catch {
    // not created yet
  }
  return Redactor.fromEnv([...c.secrets.env, ...(c.webhook.secretEnv ? [c.webhook.secretEnv] : [])], env, c.secrets.fromEnvironment, paths);
}

function logCall(file: string, r: CliCallRecord): void {
  const end = systemClock.now();
  const line = { start: end - r.durationMs, end, verb: r.verb, task: r.taskId, code: r.exitCode ?? 128, transport: r.transport };
  try {
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  } catch {
    // a diagnostic log: never a reason for a call to fail
  }
}

export function buildBoards(
  c: OpsConfig,
  env: NodeJS.ProcessEnv,
  redactor: Redactor,
  o: { log?: Logger | undefined; clock?: Clock; metrics?: Metrics | undefined; transports?: Ops["transports"]; conditions?: BoardConditions } = {},
): RedactingBoard[] {
  const { log, metrics } = o;
  // HKB_CALL_LOG=<file>: one JSON line per CLI call as the bridge saw it (the benchmark counts these).
  const callLog = env.HKB_CALL_LOG;
  return c.boards.map(
    (slug) =>
      new RedactingBoard(
        new HermesCliBoard({
          slug,
          command: c.hermes.command,
          env: {
            parent: env,
            passEnv: c.hermes.passEnv,
            set: { ...c.hermes.env, ...(c.hermes.home ? { HERMES_HOME: c.hermes.home } : {}) },
            author: c.author,
          },
          timeoutMs: callTimes(c).callTimeoutMs,
          callServer: c.hermes.callServer,
          share: shareOf(c, env),
          onTransport: (mode, why) => {
            metrics?.transport(slug, mode);
            o.transports?.set(slug, { mode, why });
            log?.info({ board: slug, transport: mode, why }, mode === "server" ? "hermes call server in use" : "hermes calls as plain processes");
          },
          textCapBytes: c.hermes.textCapBytes,
          retry: retryPolicy(c),
          clock: o.clock ?? systemClock,
          onRetry: (verb, err, attempt) => log?.warn({ board: slug, verb, attempt, err: err.message }, "board call failed; retrying"),
          onCall: (r: CliCallRecord) => {
            o.conditions?.observe(slug, r);
            metrics?.cliCall(r.verb, r.exitCode, r.durationMs, r.transport);
            if (callLog) logCall(callLog, r);
          },
        }),
        redactor,
      ),
  );
}

/** What `outbox` and the daemon share: boards, outbox, alerts, closer (no agent). */
export function buildOps(c: OpsConfig, env: NodeJS.ProcessEnv, log: Logger, clock: Clock = systemClock, metrics?: Metrics): Ops {
  const redactor = redactorFor(c, env);
  const transports: Ops["transports"] = new Map();
  const conditions = new BoardConditions(clock, log);
  const boards = buildBoards(c, env, redactor, { log, clock, metrics, transports, conditions });
  const bySlug = new Map(boards.map((b) => [b.slug, b]));
  const now = () => new Date(clock.now());
  const outbox = new Outbox(c.stateDir, now);
  const alerter = new WebhookAlerter({
    url: c.webhook.url,
    secret: c.webhook.secretEnv ? env[c.webhook.secretEnv] : undefined,
    timeoutMs: callTimes(c).webhookTimeoutMs,
    retries: c.webhook.retries,
  });
  const alerts = new AlertSender({
    alerter,
    dir: c.stateDir,
    queueSize: c.webhook.queueSize,
    now,
    onDelivered: (p) => markAlert(outbox, p, true),
    onDead: (p, err) => {
      metrics?.alertsDead.inc();
      markAlert(outbox, p, false, err);
      log.error({ task_id: p.task_id, trace_id: p.trace_id, err }, "alert not delivered: entry kept as a dead letter");
    },
  });
  const closer = new Closer({
    board: (slug) => {
      const b = bySlug.get(slug) ?? buildBoards({ ...c, boards: [slug] }, env, redactor, { log, clock })[0];
      if (!b) throw new Error(`no board ${slug}`);
      return b;
    },
    outbox,
    alerts: { canDeliver: c.webhook.url !== undefined, enqueue: (p) => alerts.enqueue(p) },
    redactor,
    author: c.author,
    seat: c.seat.name,
    now,
    clock,
    retry: retryPolicy(c),
    log: (level, msg, data) => log[level](data, msg),
  });
  conditions.alerts = alerts;
  const closeBoards = async () => void (await Promise.allSettled(boards.map((b) => b.close())));
  return { boards, outbox, alerts, closer, redactor, metrics, transports, closeBoards, conditions };
}

/** The bridge's one git (git/runner.ts), with the operator's git settings and a bridge-owned global config. */
export function gitRunner(c: Pick<Config, "stateDir" | "workspace">, env: NodeJS.ProcessEnv): GitRunner {
  const g = c.workspace.git;
  return hardenedGit(env, {
    globalConfig: statePath(c.stateDir, "gitConfig"),
    sshCommand: g.sshCommand,
    hooksPath: g.hooksPath,
    credentialHelper: g.credentialHelper,
    passEnv: g.passEnv,
  });
}

export async function build(
  c: Config,
  env: NodeJS.ProcessEnv,
  log: Logger,
  clock: Clock = systemClock,
  kinds: readonly AgentKind[] = AGENT_KINDS,
): Promise<Built> {
  const metrics = c.http.port !== undefined ? new (await import("../observe/metrics.js")).Metrics(c.boards, c.serviceLevels) : undefined;
  const ops = buildOps(c, env, log, clock, metrics);
  const gateEnv = agentEnv(env, c.agent.passEnv, c.agent.env);
  const git = gitRunner(c, env);
  const settings = workspaceSettings(c, env);
  const forbidden = forbiddenRoots({
    stateDir: c.stateDir,
    localRoot: settings.localRoot,
    hermesHomes: settings.hermesHomes,
    files: [c.provenance?.file, c.http.tokenFile],
    logins: [kindOf(c, kinds).home?.(c.agent, c.stateDir)],
    own: [imageCacheOf(c.agent.isolation, env), defaultWorkspaceRegistry(env), shareOf(c, env)?.dir, c.hermes.shareDir, defaultShareDir(env)], // + every hub's sockets
  });
  const limits = await seatLimits(c, env);
  const jail = new Jail(await resolvePolicy(c.agent.isolation, { env, dir: statePath(c.stateDir, "jail"), forbidden, limits }), {
    onImageCopied: (image, bytes, ms) => log.info({ image, mib: Math.round(bytes / 2 ** 20), ms }, "copied the CLI's image execute-only (once per version)"),
  });
  const proxied = jail.mode === "bwrap" && jail.policy.network === "proxy";
  const { allowHosts, denyHosts } = c.agent.isolation;
  // Before the images are copied: under the proxy a deny of a host the seat needs is a config error (egress/plan.ts).
  const egress = egressPlan({ kind: kindOf(c, kinds).egress?.(c.agent, env) ?? { hosts: [] }, allowHosts, denyHosts, env: gateEnv, enforced: proxied });
  await imagesAtStart(jail, seatImages(c, env, kinds));
  await handbacksAtStart(jail, log);
  // Without bubblewrap nothing can be staged for the agent's uid (jail.ts): it must pass the state dir itself.
  if (jail.mode === "user" && !jail.policy.user.same) agentsReach(c.stateDir, settings.localRoot, jail.policy.user);
  // The jail's network as promised, or the seat does not start (fails closed).
  if (proxied) {
    const why = await postureOnce(jail, egress, log);
    if (why) throw new ConfigError([{ path: "agent.isolation.network", message: `is proxy, but the start check failed: ${why}` }]);
  }
  const upload: UploadSpec | undefined = c.workspace.uploadCommand
    ? { command: c.workspace.uploadCommand, dir: c.workspace.uploadDir ?? "/tmp/hermes-bridge-uploads/{task}", env: bridgeEnv(env), timeoutMs: 300_000 }
    : undefined;
  return {
    ...ops,
    config: c,
    settings: runSettings(c),
    seatSettings: seatSettings(c),
    clock,
    log,
    kinds,
    agent: await createAgent(c, env, clock, ops.redactor, kinds),
    prompts: { task: loadTemplate(promptFileFor(c, kinds)), resume: loadTemplate(bundledFile("prompts", "continue.md")) },
    active: new ActiveRuns(statePath(c.stateDir, "active"), statePath(c.stateDir, "runs")),
    journal: new SessionJournal(statePath(c.stateDir, "sessions")),
    ledger: new UsageLedger(c.stateDir, clock),
    workspaces: new LocalWorkspaces(settings, git),
    jail,
    gateEnv,
    git,
    cliOnThisHost: sshSplit(c.hermes.command) === null,
    skillRoots: skillRoots(c, env),
    checkClaim: claimCheckOf(kindOf(c, kinds), c, env),
    egress,
    retry: retryPolicy(c),
    make: defaultFactories(clock, env),
    upload,
  };
}

/**
 * A bridge running as root runs its agents as another uid, which must pass the state dir down to a run's
 * dir and a checkout (bubblewrap mounts them as that uid): the state dir, runs and checkouts become 0711;
 * a state dir under a parent that uid cannot pass (under /root) is refused, naming what to do.
 */
function agentsReach(stateDir: string, localRoot: string, user: AgentUser): void {
  const runs = statePath(stateDir, "runs");
  passableStateDir(stateDir, [runs, localRoot, statePath(stateDir, "jail")]);
  const why = cannotReach(join(runs, "x"), user);
  if (why)
    throw new ConfigError([
      {
        path: "stateDir",
        message: `${why}: put the state dir where uid ${user.uid} can pass (e.g. /var/lib/hermes-bridge/<seat>), or set agent.isolation.user`,
      },
    ]);
}

/** The seat's check of what a run claimed, through its kind's probe (none for a kind without one). */
function claimCheckOf(k: AgentKind, c: Config, env: NodeJS.ProcessEnv): ((claim: Claim) => Promise<ClaimCheck>) | undefined {
  const check = k.check;
  return check ? (claim) => check(claim, c.agent, { stateDir: c.stateDir, env }) : undefined;
}

/** The bridge's own environment for its own tools (the upload command) — never given to agents. */
function bridgeEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return pickEnv(env, Object.keys(env), { never: HERMES_ALL });
}
