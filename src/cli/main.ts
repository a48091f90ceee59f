#!/usr/bin/env node
// hermes-bridge: the product CLI. The only place that decides exit codes.
import { Command, Option } from "commander";
import { ConfigError, ExitError, describeError } from "../errors/index.js";
import { readFileSync } from "node:fs";
import { bundledFile } from "../config/paths.js";
import { demoCommand } from "./demo.js";
import { doctorCommand } from "./doctor.js";
import { statusCommand } from "./status.js";
import { outboxList, outboxReplay } from "./outbox.js";
import { runCommand } from "./run.js";

const FLAG_OPTIONS: [string, string][] = [
  ["--board <slug>", "board slug (comma-separated for several)"],
  ["--assignee <name>", "this seat's lane name on the board (never a Hermes profile)"],
  ["--author <name>", "author of comments (default: the assignee)"],
  ["--hermes <argv>", 'the hermes command, e.g. "hermes" or "ssh board-host hermes"'],
  ["--hermes-home <dir>", "HERMES_HOME for the CLI"],
  ["--agent <kind>", "agent kind (command)"],
  ["--agent-command <argv>", "the command agent's argv"],
  ["--concurrency <n>", "tasks worked at once"],
  ["--ttl <seconds>", "claim TTL"],
  ["--heartbeat-interval <seconds>", "heartbeat interval (≤ ttl/4)"],
  ["--state-dir <dir>", "outbox and run state"],
  ["--webhook-url <url>", "alert webhook"],
  ["--log-level <level>", "trace|debug|info|warn|error"],
  ["--log-format <format>", "auto|json|pretty"],
  ["--http-port <port>", "loopback /healthz, /metrics, /status"],
];

function flagsOf(opts: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [flag] of FLAG_OPTIONS) {
    const name = flag.slice(2, flag.indexOf(" "));
    const key = name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
    const v = opts[key];
    if (typeof v === "string") out[name] = v;
  }
  return out;
}

function withFlags(cmd: Command): Command {
  cmd.option("-c, --config <file>", "YAML config file");
  for (const [flag, desc] of FLAG_OPTIONS) cmd.addOption(new Option(flag, desc));
  return cmd;
}

export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const program = new Command("hermes-bridge")
    .description("Run an external coding agent as a worker on a Hermes Kanban board")
    .exitOverride()
    .showHelpAfterError();
  withFlags(program.command("run").description("run the bridge daemon"))
    .option("--once", "finish every ready task, then exit")
    .action(async (opts: Record<string, unknown>) => {
      code = await runCommand({ ...(typeof opts.config === "string" ? { config: opts.config } : {}), once: opts.once === true, flags: flagsOf(opts) });
    });
  const outbox = program.command("outbox").description("closes that did not land");
  withFlags(outbox.command("list").description("show pending, failed and dead entries"))
    .option("--json", "JSON output")
    .action((opts: Record<string, unknown>) => {
      code = outboxList({ ...(typeof opts.config === "string" ? { config: opts.config } : {}), json: opts.json === true, flags: flagsOf(opts) });
    });
  withFlags(outbox.command("replay").description("retry every open entry (fenced), re-send failed alerts")).action(async (opts: Record<string, unknown>) => {
    code = await outboxReplay({ ...(typeof opts.config === "string" ? { config: opts.config } : {}), flags: flagsOf(opts) });
  });
  withFlags(program.command("status").description("the seat, runs in flight, outbox backlog, last errors"))
    .option("--json", "JSON output")
    .action(async (opts: Record<string, unknown>) => {
      code = await statusCommand({ ...(typeof opts.config === "string" ? { config: opts.config } : {}), json: opts.json === true, flags: flagsOf(opts) });
    });
  withFlags(program.command("doctor").description("check the setup; prints a fix for each failure"))
    .option("--send-test-alert", "deliver a test alert to the webhook")
    .action(async (opts: Record<string, unknown>) => {
      code = await doctorCommand({ ...(typeof opts.config === "string" ? { config: opts.config } : {}), sendTestAlert: opts.sendTestAlert === true, flags: flagsOf(opts) });
    });
  program
    .command("task-tools")
    .description("MCP stdio server with this run's task tools (started by the bridge for CLI agents)")
    .action(async () => {
      const { serveTaskTools } = await import("../tools/mcp-server.js");
      await serveTaskTools(process.env);
    });
  program
    .command("skill")
    .description("print the agent protocol cheat sheet (skills/SKILL.md)")
    .action(() => {
      process.stdout.write(readFileSync(bundledFile("skills", "SKILL.md"), "utf8"));
    });
  program
    .command("demo")
    .description("run the bridge on a temporary emulator board with a scripted demo agent")
    .option("--keep", "keep the temporary directory")
    .action(async (opts: { keep?: boolean }) => {
      code = await demoCommand({ keep: opts.keep === true });
    });
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    const e = err as { code?: string; exitCode?: number };
    if (typeof e.code === "string" && e.code.startsWith("commander.")) return e.exitCode === 0 ? 0 : 2;
    if (err instanceof ConfigError) {
      process.stderr.write(`hermes-bridge: ${err.message}\n`);
      return 2;
    }
    if (err instanceof ExitError) {
      process.stderr.write(`hermes-bridge: ${describeError(err)}\n`);
      return err.exitCode;
    }
    process.stderr.write(`hermes-bridge: ${describeError(err)}\n`);
    return 1;
  }
  return code;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`hermes-bridge: ${describeError(err)}\n`);
    process.exit(1);
  },
);
