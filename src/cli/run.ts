// `hermes-bridge run`: the daemon. Signals: first SIGINT/SIGTERM drains, the second aborts runs.
import { systemClock } from "../time/clock.js";
import { loadConfig, preflight } from "../agents/kinds.js";
import type { Config } from "../config/schema.js";
import { build, redactorFor } from "../daemon/build.js";
import { Daemon } from "../daemon/daemon.js";
import { effectiveSettings } from "../observe/settings.js";
import { CliUnavailable } from "../errors/board.js";
import { ConfigError, ExitError } from "../errors/index.js";
import { createLogger } from "../log/logger.js";
import { httpToken } from "../config/http-token.js";
import { describeError } from "../errors/index.js";
import { fleetPage } from "../observe/fleet-html.js";
import { HttpServer } from "../observe/http.js";
import { ensureStateDir } from "../state/dir.js";
import { lockStateDir } from "../state/lock.js";
import { closeInheritedDescriptors } from "../process/descriptors.js";
import { recordSeatSettings } from "./ops-config.js";
import { clearStartFailure, recordStartFailure } from "../state/start-failure.js";

export interface RunOptions {
  config?: string;
  once?: boolean;
  flags: Record<string, string | undefined>;
}

export async function runCommand(o: RunOptions, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // Only what a child is given reaches it: descriptors inherited without close-on-exec go first.
  const closed = closeInheritedDescriptors(env);
  const config = loadConfig({ file: o.config, env, flags: o.flags });
  ensureStateDir(config.stateDir);
  // One daemon per seat: held for this process's life (a second one is refused, naming this one).
  const lock = await lockStateDir(config.stateDir, { config: o.config ?? null, now: systemClock.now() });
  const redactor = redactorFor(config, env);
  const log = createLogger({ level: config.log.level, format: config.log.format, redact: (t) => redactor.redact(t) });
  try {
    recordSeatSettings(config);
  } catch (err) {
    log.warn({ err: describeError(err) }, "could not record the seat's settings: status, outbox and usage need --config for this seat");
  }
  // A start that fails (its start check, a setting the build refuses) is kept for the fleet, with why.
  const b = await build(config, env, log).catch((err: unknown) => {
    const why = err instanceof ConfigError ? err.issues.map((i) => `${i.path}: ${i.message}`).join("; ") : describeError(err);
    try {
      recordStartFailure(config.stateDir, redactor.redact(why), systemClock.now());
    } catch (e) {
      log.warn({ err: describeError(e) }, "could not record why the seat did not start");
    }
    throw err;
  });
  clearStartFailure(config.stateDir);
  b.outbox.compact();
  const daemon = new Daemon({ ...b, once: o.once === true, preflight: () => preflight(config, env) });
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals += 1;
    log.warn({ signal: sig, in_flight: daemon.inFlight }, signals === 1 ? "stopping: draining in-flight runs" : "stopping now: aborting runs");
    // The stop's own failure ends in `done` (awaited below): nothing is left floating here.
    (signals === 1 ? daemon.stop() : daemon.kill()).catch((err: unknown) => log.error({ err: describeError(err) }, "the stop failed"));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const t = httpToken(config, env);
  const token = "token" in t ? t.token : undefined;
  const http =
    config.http.port !== undefined && b.metrics
      ? new HttpServer(daemon, b.metrics, {
          page: fleetPage(config, { token }),
          allowedHosts: config.http.allowedHosts,
          token,
          onError: (path, err) => log.error({ path, err: describeError(err) }, "an HTTP answer failed (500)"),
        })
      : null;
  let notClosed = 0;
  daemon.on("run:closed", (r) => {
    if (r.close === "failed" || r.close === "dead" || r.close === "held" || r.close === "not_attempted") notClosed += 1;
  });
  try {
    log.info({ ...effectiveSettings(config), agent: b.agent.name, once: o.once === true }, "hermes-kanban-bridge started");
    if (closed.length) log.warn({ descriptors: closed }, "closed descriptors the bridge inherited without close-on-exec: no agent gets them");
    for (const w of config.provenance?.warnings ?? []) log.warn({ warning: w }, "configuration warning");
    if (b.jail?.mode === "bwrap") {
      const network = b.jail.policy.network;
      const allowed = network === "proxy" ? (b.egress?.allow.describe() ?? []) : [];
      const relay = b.jail.policy.relay?.[0];
      log.info(
        { isolation: "bwrap", why: b.jail.policy.why, relay, network, ...(network === "proxy" ? { allowed } : {}) },
        "agents run in a jail of their own",
      );
      if (network === "host")
        log.warn(
          { network },
          "JAILED AGENTS USE THE HOST'S NETWORK (agent.isolation.network: host): they reach its loopback, its abstract sockets and any host on the internet",
        );
      if (b.jail.policy.user.same && b.jail.policy.shared?.mode === "keep")
        log.warn(
          { sharedFiles: "keep" },
          "AGENTS MAY REWRITE FILES HARD-LINKED OUT OF THEIR WORKSPACE (agent.isolation.sharedFiles: keep, a bridge not run as root): a local clone's source objects, a package store's files",
        );
    } else if (b.jail?.mode === "user")
      log.warn(
        { isolation: "user", why: b.jail.policy.why },
        "AGENTS ARE NOT JAILED: they run as an unprivileged uid of their own, without namespaces (they see the host's files that uid may read, and its network)",
      );
    else
      log.warn(
        { isolation: "none", why: b.jail?.policy.why },
        "AGENTS ARE NOT ISOLATED: they run as the bridge's user and can read its HOME, its config and its state dir (install bubblewrap, or see `hermes-bridge doctor`)",
      );
    const lim = b.jail?.policy.limits;
    if (lim?.mode === "systemd" || lim?.mode === "cgroup") log.info({ limits: lim.mode, why: lim.why }, "runs are capped");
    else if (lim?.mode === "rlimit")
      log.warn(
        { limits: "rlimit", why: lim.why },
        "RUNS ARE CAPPED PER PROCESS ONLY (no cgroup here): a run of many processes can use a multiple of the memory cap",
      );
    else log.warn({ limits: "none", why: lim?.why }, "RUNS ARE NOT CAPPED (agent.limits): a run may take the host's memory and processes");
    if (http && config.http.port !== undefined) {
      const port = await http.listen(config.http.port, config.http.host).catch((err: unknown) => {
        throw listenError(err, config);
      });
      log.info({ url: `http://${config.http.host}:${port}` }, "observability server listening (/ fleet page, /healthz, /metrics, /status)");
    }
    await daemon.start();
    await daemon.done;
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    if (err instanceof CliUnavailable) throw new ExitError(2, `${err.message}`, { cause: err });
    throw new ExitError(1, `the bridge stopped: ${(err as Error).message}`, { cause: err });
  } finally {
    await http?.close();
    await lock.release();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  const backlog = b.outbox.backlog();
  log.info({ outbox_backlog: backlog, close_failures: notClosed }, "hermes-kanban-bridge stopped");
  // A seat that could not work is no success for cron or CI: its pre-flight (or a run) found the agent logged out.
  if (o.once && daemon.seat.authFailed())
    throw new ExitError(
      1,
      `run --once: the seat could not work and claimed nothing: ${daemon.seat.reason ?? "its agent pre-flight failed"}${daemon.seat.fix ? ` — fix: ${daemon.seat.fix}` : ""}`,
    );
  return notClosed > 0 ? 1 : 0;
}

/** A port that cannot be bound is the operator's setting: named as http.port (and how it was set). */
function listenError(err: unknown, c: Config): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  const how = c.provenance?.given["http.port"];
  const set = how && !how.startsWith("http.port") ? ` (set by ${how})` : "";
  if (code === "EADDRINUSE")
    return new ConfigError(
      [
        {
          path: "http.port",
          message: `${c.http.port} is already in use on ${c.http.host}${set}: another seat or program listens there — choose a free port (0: any)`,
        },
      ],
      { cause: err },
    );
  if (code === "EACCES")
    return new ConfigError(
      [{ path: "http.port", message: `${c.http.port} may not be bound by this user on ${c.http.host}${set} — choose a port above 1023` }],
      {
        cause: err,
      },
    );
  if (code === "EADDRNOTAVAIL")
    return new ConfigError([{ path: "http.host", message: `${c.http.host} is no address of this machine — choose one it has (127.0.0.1 for loopback)` }], {
      cause: err,
    });
  return err;
}
