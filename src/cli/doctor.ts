// `hermes-bridge doctor`: a table of checks, each failure with its fix; exit 1 if any fails.
import { accessSync, constants, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { BoardNotFound } from "../board/index.js";
import { loadConfig } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { buildBoards } from "../daemon/build.js";
import { ConfigError, describeError } from "../errors/index.js";
import { WebhookAlerter } from "../outbox/webhook.js";
import { preflight } from "../agents/preflight.js";

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  fix: string;
}

export interface DoctorOptions {
  config?: string;
  sendTestAlert?: boolean;
  flags: Record<string, string | undefined>;
}

function onPath(cmd: string, env: NodeJS.ProcessEnv): boolean {
  const ok = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (cmd.includes("/")) return ok(isAbsolute(cmd) ? cmd : join(process.cwd(), cmd));
  return (env.PATH ?? "").split(delimiter).some((d) => d && ok(join(d, cmd)));
}

export async function runChecks(o: DoctorOptions, env: NodeJS.ProcessEnv): Promise<Check[]> {
  let c: Config;
  try {
    c = loadConfig({ file: o.config, env, flags: o.flags });
  } catch (err) {
    const detail = err instanceof ConfigError ? err.issues.map((i) => `${i.path}: ${i.message}`).join("; ") : describeError(err);
    return [{ name: "config", ok: false, detail, fix: "correct the keys named (see config.example.yaml)" }];
  }
  const checks: Check[] = [{ name: "config", ok: true, detail: `${o.config ?? "(flags/env only)"} is valid`, fix: "" }];
  const boards = buildBoards(c, env);
  const first = boards[0];
  try {
    const caps = first ? await first.capabilities() : null;
    checks.push({ name: "hermes command", ok: true, detail: `${c.hermes.command.join(" ")} answers; block --kind: ${caps?.blockKinds.length ? caps.blockKinds.join("|") : "not supported (older Hermes)"}`, fix: "" });
  } catch (err) {
    checks.push({ name: "hermes command", ok: false, detail: describeError(err), fix: "install Hermes ≥ 0.20 or set hermes.command (e.g. [\"ssh\", \"board-host\", \"hermes\"])" });
  }
  for (const b of boards) {
    try {
      const ready = await b.listReady({ assignee: c.assignee });
      checks.push({ name: `board ${b.slug}`, ok: true, detail: `reachable; ${ready.length} ready for ${c.assignee}`, fix: "" });
    } catch (err) {
      checks.push({ name: `board ${b.slug}`, ok: false, detail: describeError(err), fix: err instanceof BoardNotFound ? `hermes kanban boards create ${b.slug}` : "check hermes.command, HERMES_HOME and the board host" });
    }
  }
  const home = c.hermes.home ?? env.HERMES_HOME;
  const isProfile = c.assignee === "default" || (home !== undefined && existsSync(join(home, "profiles", c.assignee)));
  checks.push({
    name: "assignee",
    ok: !isProfile,
    detail: isProfile ? `'${c.assignee}' is a Hermes profile: the gateway would spawn Hermes workers for its tasks` : `'${c.assignee}' is not a Hermes profile`,
    fix: isProfile ? "choose a lane name that is not a profile (e.g. claude-seat-1)" : "",
  });
  checks.push(await agentCheck(c, env));
  try {
    mkdirSync(c.stateDir, { recursive: true, mode: 0o700 });
    const probe = join(c.stateDir, `.doctor-${process.pid}`);
    writeFileSync(probe, "ok");
    rmSync(probe);
    checks.push({ name: "state dir", ok: true, detail: `${c.stateDir} writable`, fix: "" });
  } catch (err) {
    checks.push({ name: "state dir", ok: false, detail: describeError(err), fix: "set stateDir to a writable directory" });
  }
  if (!c.webhook.url) checks.push({ name: "webhook", ok: true, detail: "not configured: failed closes are only journaled in the outbox", fix: "" });
  else if (o.sendTestAlert) {
    try {
      await new WebhookAlerter({ url: c.webhook.url, secret: c.webhook.secretEnv ? env[c.webhook.secretEnv] : undefined, timeoutMs: c.webhook.timeoutSeconds * 1000, retries: 0 }).send({
        event: "test",
        board: c.boards[0] ?? "",
        task_id: "",
        run_id: null,
        trace_id: "doctor",
        intended_close: null,
        error: null,
        at: new Date().toISOString(),
      });
      checks.push({ name: "webhook", ok: true, detail: "test alert delivered", fix: "" });
    } catch (err) {
      checks.push({ name: "webhook", ok: false, detail: describeError(err), fix: "check webhook.url and that the receiver answers 2xx" });
    }
  } else checks.push({ name: "webhook", ok: true, detail: "URL well formed (use --send-test-alert to deliver one)", fix: "" });
  return checks;
}

async function agentCheck(c: Config, env: NodeJS.ProcessEnv): Promise<Check> {
  const a = c.agent;
  if (a.kind !== "local-llm") {
    const cmd = a.command[0] ?? "";
    if (!onPath(cmd, env)) return { name: "agent", ok: false, detail: `${cmd} not found or not executable`, fix: "install the agent or fix agent.command" };
    if (a.kind === "command") return { name: "agent", ok: true, detail: `${cmd} found`, fix: "" };
  }
  const p = await preflight(c, env);
  return { name: "agent", ok: p.ok, detail: p.detail, fix: p.ok ? "" : p.fix };
}

export async function doctorCommand(o: DoctorOptions, env: NodeJS.ProcessEnv = process.env, print: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const checks = await runChecks(o, env);
  print(`${"CHECK".padEnd(16)} ${"RESULT".padEnd(6)} DETAIL\n`);
  for (const ch of checks) {
    print(`${ch.name.padEnd(16)} ${(ch.ok ? "ok" : "FAIL").padEnd(6)} ${ch.detail}\n`);
    if (!ch.ok) print(`${"".padEnd(23)} fix: ${ch.fix}\n`);
  }
  return checks.every((ch) => ch.ok) ? 0 : 1;
}
