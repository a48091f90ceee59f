// `hermes-bridge doctor`: a table of checks, each failure with its fix, then the effective settings
// with where each came from; exit 1 if any check fails.
import { BWRAP_IN_CONTAINER, BWRAP_ON_HOST, imageCacheOf, probeBwrap, resolveAgentUser } from "../jail/policy.js";
import { mib, probeImageCache } from "../jail/image-cache.js";
import { writeSeccomp } from "../jail/seccomp.js";
import { accessSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { loadConfig, seatImages } from "../agents/kinds.js";
import { BoardNotFound, type Capabilities, noShareReason } from "../board/index.js";
import type { Config } from "../config/schema.js";
import { buildBoards, gitRunner, redactorFor } from "../daemon/build.js";
import { shareOf } from "../daemon/share.js";
import { settingsTable } from "../observe/settings.js";
import { ConfigError, describeError } from "../errors/index.js";
import { WebhookAlerter } from "../outbox/webhook.js";
import { redactUrl } from "../result/redact.js";
import { stateDirProblem } from "../state/dir.js";
import { MAX_SOCKET_PATH_BYTES, newSocketPath, removeSocketDir } from "../tools/socket-path.js";
import type { Check } from "./check.js";
import { agentChecks } from "./doctor-agent.js";
import { networkCheck } from "./doctor-network.js";
import { workspaceChecks } from "./doctor-workspace.js";
import { boardFix, versionCheck } from "./doctor-hermes.js";

export type { Check } from "./check.js";

export interface DoctorOptions {
  config?: string;
  sendTestAlert?: boolean;
  flags: Record<string, string | undefined>;
}

const pass = (name: string, detail: string): Check => ({ name, ok: true, detail, fix: "" });
const fail = (name: string, detail: string, fix: string): Check => ({ name, ok: false, detail, fix });

export async function runChecks(o: DoctorOptions, env: NodeJS.ProcessEnv): Promise<{ checks: Check[]; config: Config | null }> {
  let c: Config;
  try {
    c = loadConfig({ file: o.config, env, flags: o.flags });
  } catch (err) {
    const detail = err instanceof ConfigError ? err.issues.map((i) => `${i.path}: ${i.message}`).join("; ") : describeError(err);
    return { checks: [fail("config", detail, "correct the keys named (see config.example.yaml)")], config: null };
  }
  const checks: Check[] = [pass("config", `${o.config ?? "(flags/env only)"} is valid`)];
  const warnings = c.provenance?.warnings ?? [];
  if (warnings.length > 0)
    checks.push(
      fail("environment", warnings.join("; "), "rename or unset the variables named (the setting variables are the flags' names: hermes-bridge run --help)"),
    );
  const boards = buildBoards(c, env, redactorFor(c, env));
  let caps: Capabilities | null = null;
  try {
    caps = (await boards[0]?.capabilities()) ?? null;
    const kinds = caps?.blockKinds.length ? caps.blockKinds.join("|") : "not supported (older Hermes)";
    checks.push(
      pass(
        "hermes command",
        `${c.hermes.command.join(" ")} answers (Hermes ${caps?.version ?? "?"}); block --kind: ${kinds}; attach: ${caps?.attach ? "yes" : "no"}; ` +
          `named claims: ${caps?.namedClaims ? "yes" : "no"}; renewal: ${caps?.heartbeatExtends ? "yes (heartbeat renews the claim)" : "no (a run lives one TTL)"}; ` +
          `guards: ${caps?.expectedStatus.length ? caps.expectedStatus.join(", ") : "none"}; reclaim counts as failure: ${caps?.reclaimCountsAsFailure ? "yes" : "no"}`,
      ),
    );
    checks.push(versionCheck(caps?.version ?? null));
  } catch (err) {
    checks.push(fail("hermes command", describeError(err), 'install Hermes ≥ 0.20 or set hermes.command (e.g. ["ssh", "board-host", "hermes"])'));
  }
  for (const b of boards) {
    try {
      const ready = await b.listReady({ assignee: c.assignee });
      checks.push(pass(`board ${b.slug}`, `reachable; ${ready.length} ready for ${c.assignee}`));
    } catch (err) {
      checks.push(
        fail(
          `board ${b.slug}`,
          describeError(err),
          err instanceof BoardNotFound ? `hermes kanban boards create ${b.slug}` : (boardFix(err) ?? "check hermes.command, HERMES_HOME and the board host"),
        ),
      );
    }
  }
  checks.push(assigneeCheck(c, env), shareCheck(c, env));
  checks.push(...(await agentChecks(c, env)));
  checks.push(stateDirCheck(c));
  const isolation = await isolationCheck(c, env);
  checks.push(isolation, await imagesCheck(c, env, isolation.ok), networkCheck(c, env, isolation.ok));
  checks.push(await socketCheck(env));
  checks.push(...(await workspaceChecks(c, env, boards, gitRunner(c, env))));
  checks.push(await webhookCheck(c, env, o.sendTestAlert === true));
  return { checks, config: c };
}

/** hermes.share: whether the seats of this host share a hub, and where (a bad shareDir refused the seat before this). */
function shareCheck(c: Config, env: NodeJS.ProcessEnv): Check {
  const dir = shareOf(c, env)?.dir;
  if (!dir) return pass("hermes share", "seat: this seat runs its own call server and watch");
  const none = noShareReason(c.hermes.command, c.hermes.callServer, env.PATH);
  if (none)
    return fail(
      "hermes share",
      none.replace("hermes.share: host has no effect: ", "host, but "),
      "set hermes.callServer: auto for a Python launcher (python3 /path/to/hermes), or on",
    );
  return pass(
    "hermes share",
    `host: the seats of this host on the same board, command and CLI environment share one call server and watch (the hub's socket in ${dir})`,
  );
}

function assigneeCheck(c: Config, env: NodeJS.ProcessEnv): Check {
  const home = c.hermes.home ?? env.HERMES_HOME;
  let isProfile = c.assignee === "default";
  if (home !== undefined) {
    try {
      accessSync(join(home, "profiles", c.assignee));
      isProfile = true;
    } catch {
      // not a profile
    }
  }
  return isProfile
    ? fail(
        "assignee",
        `'${c.assignee}' is a Hermes profile: the gateway would spawn Hermes workers for its tasks`,
        "choose a lane name that is not a profile (e.g. claude-seat-1)",
      )
    : pass("assignee", `'${c.assignee}' is not a Hermes profile`);
}

/** The agent's jail: a working bubblewrap (auto, bwrap), or an explicit `none` — which still fails the check. */
async function isolationCheck(c: Config, env: NodeJS.ProcessEnv): Promise<Check> {
  const iso = c.agent.isolation;
  if (iso.mode === "none")
    return fail(
      "isolation",
      "agent.isolation.mode is none: agents run as the bridge's user and can read its HOME, config and state dir",
      "install bubblewrap and set agent.isolation.mode: auto (or bwrap)",
    );
  if (iso.mode === "user")
    return fail(
      "isolation",
      "agent.isolation.mode is user: agents run as an unprivileged uid without a jail (no namespaces: they see every host file that uid may read, and the host's network)",
      `give the host or container what bubblewrap needs (user namespaces: ${BWRAP_ON_HOST}; in a container: ${BWRAP_IN_CONTAINER}) and set agent.isolation.mode: auto`,
    );
  let user: ReturnType<typeof resolveAgentUser>;
  try {
    user = resolveAgentUser(iso.user);
  } catch (err) {
    return fail("isolation", describeError(err), "fix agent.isolation.user");
  }
  // The probe loads the jail's system-call filter as every jail does (a scratch copy: doctor writes no state).
  const scratch = await mkdtemp(join(tmpdir(), "hkb-doctor-"));
  const seccomp = await writeSeccomp(scratch).catch(() => null);
  const probe = await probeBwrap(iso.bwrap, env, user, seccomp).finally(() => rm(scratch, { recursive: true, force: true }));
  const as = user.same ? "" : `, as uid ${user.uid} (${user.name})`;
  if (probe.ok) return pass("isolation", `agents run in a bubblewrap jail (${probe.path}${as}${seccomp ? ", with its system-call filter" : ""})`);
  return fail(
    "isolation",
    `agents would run unjailed: ${probe.why}`,
    iso.mode === "bwrap"
      ? "agent.isolation.mode is bwrap: the seat does not start until bubblewrap works"
      : "apt-get install bubblewrap (and allow user namespaces), then restart the seat",
  );
}

/** The jail's execute-only images: where they go, what they take, and that the folder can hold and run them. */
async function imagesCheck(c: Config, env: NodeJS.ProcessEnv, jailed: boolean): Promise<Check> {
  if (!jailed) return pass("images", "not used: agents run without a jail of their own (see isolation)");
  const dir = imageCacheOf(c.agent.isolation, env);
  const probe = await probeImageCache(dir, seatImages(c, env));
  const list = probe.images.map((i) => `${basename(i.image)} ${mib(i.bytes)} (${i.cached ? "copied" : "copied at the seat's start"})`).join(", ");
  const free = probe.freeBytes !== null ? `; ${mib(probe.freeBytes)} free` : "";
  if (probe.problem)
    return fail(
      "images",
      probe.problem,
      "set agent.isolation.imageCache to an absolute folder this user can write, on a filesystem that runs programs (not noexec)",
    );
  return pass(
    "images",
    `the CLI runs from execute-only copies in ${dir} (agent.isolation.imageCache, one per user, shared by its seats): ${list || "none yet"}${free}`,
  );
}

function stateDirCheck(c: Config): Check {
  try {
    mkdirSync(c.stateDir, { recursive: true, mode: 0o700 });
    const problem = stateDirProblem(c.stateDir);
    if (problem) return fail("state dir", `${c.stateDir} ${problem}`, `chmod 700 ${c.stateDir} (and own it as this user), or choose another stateDir`);
    const probe = join(c.stateDir, `.doctor-${process.pid}`);
    writeFileSync(probe, "ok", { mode: 0o600 });
    rmSync(probe);
    return pass("state dir", `${c.stateDir} writable, private (0700, ours)`);
  } catch (err) {
    return fail("state dir", describeError(err), "set stateDir to a writable directory");
  }
}

/** A task-tools socket can be made and served where runs will put it. */
async function socketCheck(env: NodeJS.ProcessEnv): Promise<Check> {
  let path = "";
  try {
    path = newSocketPath(env);
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES)
      return fail("tool sockets", `${path} is longer than ${MAX_SOCKET_PATH_BYTES} bytes`, "set XDG_RUNTIME_DIR or TMPDIR to a short directory");
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, () => resolve());
    });
    await new Promise<void>((r) => server.close(() => r()));
    return pass("tool sockets", `per-run sockets in private dirs like ${path}`);
  } catch (err) {
    return fail(
      "tool sockets",
      `cannot serve a task-tools socket at ${path}: ${describeError(err)}`,
      "make XDG_RUNTIME_DIR (or TMPDIR) a writable directory with a short path",
    );
  } finally {
    if (path) removeSocketDir(path);
  }
}

async function webhookCheck(c: Config, env: NodeJS.ProcessEnv, send: boolean): Promise<Check> {
  if (!c.webhook.url) return pass("webhook", "not configured: failed closes are only journaled in the outbox");
  const signed = c.webhook.secretEnv ? `signed with ${c.webhook.secretEnv}` : "unsigned (no webhook.secretEnv)";
  if (!send) return pass("webhook", `${redactUrl(c.webhook.url)}, ${signed} (use --send-test-alert to deliver one)`);
  try {
    await new WebhookAlerter({
      url: c.webhook.url,
      secret: c.webhook.secretEnv ? env[c.webhook.secretEnv] : undefined,
      timeoutMs: c.webhook.timeoutSeconds * 1000,
      retries: 0,
    }).send({
      event: "test",
      board: c.boards[0] ?? "",
      task_id: "",
      run_id: null,
      trace_id: "doctor",
      intended_close: null,
      error: null,
      at: new Date().toISOString(),
    });
    return pass("webhook", `test alert delivered (${signed})`);
  } catch (err) {
    return fail("webhook", describeError(err), "check webhook.url and that the receiver answers 2xx");
  }
}

export async function doctorCommand(
  o: DoctorOptions,
  env: NodeJS.ProcessEnv = process.env,
  print: (s: string) => void = (s) => process.stdout.write(s),
): Promise<number> {
  const { checks, config } = await runChecks(o, env);
  print(`${"CHECK".padEnd(16)} ${"RESULT".padEnd(6)} DETAIL\n`);
  for (const ch of checks) {
    print(`${ch.name.padEnd(16)} ${(ch.ok ? (ch.warn ? "warn" : "ok") : "FAIL").padEnd(6)} ${ch.detail}\n`);
    if (!ch.ok || (ch.warn && ch.fix)) print(`${"".padEnd(23)} fix: ${ch.fix}\n`);
  }
  if (config) {
    print(`\n${"SETTING".padEnd(26)} ${"VALUE".padEnd(40)} FROM\n`);
    for (const s of settingsTable(config)) print(`${s.key.padEnd(26)} ${s.value.slice(0, 40).padEnd(40)} ${s.source}\n`);
  }
  return checks.every((ch) => ch.ok) ? 0 : 1;
}
