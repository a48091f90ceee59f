#!/usr/bin/env -S node --max-semi-space-size=2
// hermes-bridge: the product CLI. The only place that decides exit codes. Each command's module is
// loaded when it runs, so a long-running `run` does not carry the others (or their libraries).
// The young generation is capped at 2 MiB a half (V8's default grows it to 16 under a burst and keeps it):
// an idle seat holds ~10 MiB less, for scavenges a little more often (bench/seats.ts runs it so).
import { readFileSync } from "node:fs";
import { Command, Option } from "commander";
import { FLAGS, optionKey } from "../config/flags.js";
import { bundledFile } from "../config/paths.js";
import { ConfigError, ExitError, describeError } from "../errors/index.js";
import { escapeControls } from "../result/text.js";
import { STATS_SOURCES } from "./stats-help.js";

function flagsOf(opts: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const f of FLAGS) {
    const v = opts[optionKey(f.name)];
    if (typeof v === "string") out[f.name] = v;
  }
  return out;
}

/** The flags of a command that reads one seat's state dir (or its lane's default one). */
const STATE = ["state-dir", "assignee"];
/** The flags that reach a board. */
const BOARD = ["board", "hermes", "hermes-home", "call-server"];

/**
 * A command's own flags: its --help lists those only (`run` and `doctor` take every setting). The other
 * setting flags are still accepted, unlisted — a script that passes a seat's whole flag set to `status`
 * keeps working, and a setting reaches the command from the config file and HERMES_BRIDGE_* alike.
 */
function withFlags(cmd: Command, names?: readonly string[]): Command {
  cmd.option("-c, --config <file>", "YAML config file");
  for (const f of FLAGS) {
    const opt = new Option(`--${f.name} <${f.metavar}>`, f.help);
    cmd.addOption(!names || names.includes(f.name) ? opt : opt.hideHelp());
  }
  return cmd;
}

const common = (opts: Record<string, unknown>) => ({ ...(typeof opts.config === "string" ? { config: opts.config } : {}), flags: flagsOf(opts) });

export function version(): string {
  return (JSON.parse(readFileSync(bundledFile("package.json"), "utf8")) as { version: string }).version;
}

export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const program = new Command("hermes-bridge")
    .description("Run an external coding agent as a worker on a Hermes Kanban board")
    .version(version(), "-V, --version")
    .exitOverride()
    .showHelpAfterError();
  withFlags(program.command("run").description("run the bridge daemon"))
    .option("--once", "finish every ready task, then exit (non-zero when a claimed task could not be closed)")
    .action(async (opts: Record<string, unknown>) => {
      code = await (await import("./run.js")).runCommand({ ...common(opts), once: opts.once === true });
    });
  const outbox = program.command("outbox").description("closes that did not land");
  withFlags(outbox.command("list").description("the open entries (pending, failed, dead, lease_lost), each with the id ack and drop take"), STATE)
    .option("--json", "JSON output")
    .action(async (opts: Record<string, unknown>) => {
      code = await (await import("./outbox.js")).outboxList({ ...common(opts), json: opts.json === true });
    });
  withFlags(outbox.command("replay").description("retry every open entry (fenced), re-send failed alerts"), [...STATE, ...BOARD, "webhook-url"]).action(
    async (opts: Record<string, unknown>) => {
      code = await (await import("./outbox.js")).outboxReplay(common(opts));
    },
  );
  for (const [verb, how, what] of [
    ["ack", "acknowledged", "a person dealt with this entry (applied it by hand, or decided): it is no longer open"],
    ["drop", "dropped", "discard this entry: it is no longer open, nothing is applied"],
  ] as const)
    withFlags(outbox.command(`${verb} <id>`).description(`${what}; journaled with the reason`), STATE)
      .option("--reason <text>", "why (required): kept with the entry")
      .action(async (id: string, opts: Record<string, unknown>) => {
        code = await (await import("./outbox.js")).outboxSettle({ ...common(opts), id, how, reason: opts.reason as string | undefined });
      });
  withFlags(program.command("status").description("the seat, runs in flight, outbox backlog, last errors"), [...STATE, "http-port"])
    .option("--json", "JSON output")
    .action(async (opts: Record<string, unknown>) => {
      code = await (await import("./status.js")).statusCommand({ ...common(opts), json: opts.json === true });
    });
  withFlags(program.command("usage").description("tokens and cost by task, seat, board or day, from the board's records (every seat)"), [...BOARD, ...STATE])
    .option("--since <when>", "an ISO date/time or a duration back from now (7d, 24h, 90m)", "7d")
    .option("--by <key>", "task | seat | board | day", "seat")
    .option("--csv", "CSV output")
    .option("--json", "JSON output")
    .action(async (opts: Record<string, unknown>) => {
      const str = (v: unknown) => (typeof v === "string" ? v : undefined);
      code = await (await import("./usage.js")).usageCommand({
        ...common(opts),
        ...(str(opts.since) ? { since: str(opts.since) } : {}),
        ...(str(opts.by) ? { by: str(opts.by) } : {}),
        csv: opts.csv === true,
        json: opts.json === true,
      });
    });
  withFlags(program.command("stats").description("runs, outcomes, rates, p50/p95/p99 and spend per seat, kind, board, day or task (every seat)"), [
    ...BOARD,
    ...STATE,
  ])
    .option("--since <when>", "an ISO date/time or a duration back from now (7d, 24h, 90m)", "7d")
    .option("--by <key>", "seat | kind | board | day | task", "seat")
    .option("--root <dir>", "the directory holding the seats' state dirs, whose outboxes hold dead letters (default: fleet.root)")
    .option("--csv", "CSV output")
    .option("--json", "JSON output")
    .addHelpText("after", STATS_SOURCES)
    .action(async (opts: Record<string, unknown>) => {
      const str = (v: unknown) => (typeof v === "string" ? v : undefined);
      code = await (await import("./stats.js")).statsCommand({
        ...common(opts),
        ...(str(opts.since) ? { since: str(opts.since) } : {}),
        ...(str(opts.by) ? { by: str(opts.by) } : {}),
        ...(str(opts.root) ? { root: str(opts.root) } : {}),
        csv: opts.csv === true,
        json: opts.json === true,
      });
    });
  withFlags(program.command("fleet").description("every seat in one table: local state dirs under a root and remote /status URLs"), STATE)
    .option("--root <dir>", "the directory holding one state dir per seat (default: the parent of the state dir)")
    .option("--url <url>", "a remote seat's status URL (repeatable)", (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option("--json", "JSON output")
    .option("--watch [seconds]", "refresh every N seconds (default 5) until interrupted")
    .action(async (opts: Record<string, unknown>) => {
      const watch = opts.watch === true ? 5 : typeof opts.watch === "string" ? Number(opts.watch) : undefined;
      if (watch !== undefined && !(watch > 0)) throw new ExitError(2, `fleet --watch: '${String(opts.watch)}' is not a number of seconds`);
      const ac = new AbortController();
      process.once("SIGINT", () => ac.abort());
      code = await (await import("./fleet.js")).fleetCommand(
        {
          ...common(opts),
          ...(typeof opts.root === "string" ? { root: opts.root } : {}),
          urls: Array.isArray(opts.url) ? (opts.url as string[]) : [],
          json: opts.json === true,
          ...(watch !== undefined ? { watch } : {}),
        },
        process.env,
        undefined,
        ac.signal,
      );
    });
  withFlags(program.command("doctor").description("check the setup; prints a fix for each failure and the effective settings"))
    .option("--send-test-alert", "deliver a test alert to the webhook")
    .action(async (opts: Record<string, unknown>) => {
      code = await (await import("./doctor.js")).doctorCommand({ ...common(opts), sendTestAlert: opts.sendTestAlert === true });
    });
  program
    .command("init")
    .description("a first seat: write a commented config, make the agent's login home, print the login, run doctor")
    .requiredOption("--board <slug>", "the board the seat works")
    .option("--seat <name>", "the seat's name (its state dir and config file; its lane unless --assignee)")
    .option("--assignee <name>", "the seat's lane on the board (default: the seat's name)")
    .requiredOption("--agent <setup>", "claude | claude-api-key | codex | codex-api-key | codex-endpoint | local-llm | command")
    .option("--model <name>", "the model (required for codex-endpoint and local-llm)")
    .option("--base-url <url>", "the endpoint (codex-endpoint, local-llm; claude-api-key: an Anthropic-compatible gateway)")
    .option("--api-key-env <name>", "the variable that holds the endpoint's key (codex-endpoint, local-llm)")
    .option("--agent-command <argv>", "the command agent's argv, or the CLI to run instead of claude / codex on PATH")
    .option("--hermes <argv>", 'how this host runs the board\'s CLI (default "hermes"; e.g. "ssh -T board-host hermes")')
    .option("--hermes-home <dir>", "HERMES_HOME for the CLI")
    .option("--hermes-share <mode>", "seat | host: this host's seats of the board share one call server and watch (hermes.share)")
    .option(
      "--state-dir <dir>",
      "the seat's state dir (default: ~/.local/state/hermes-kanban-bridge/<seat>; as root /var/lib/hermes-bridge/<seat>, the systemd unit's)",
    )
    .option("-c, --config <file>", "where to write the config (default: ./<seat>.yaml)")
    .option("--user <name>", "as root: the service user the seat runs as (systemd's User=): it owns the state dir, its group reads the config")
    .option("--force", "replace an existing config file")
    .option("--no-doctor", "do not run doctor at the end")
    .action(async (opts: Record<string, unknown>) => {
      const str = (v: unknown) => (typeof v === "string" ? v : undefined);
      code = await (await import("./init.js")).initCommand({
        board: String(opts.board),
        agent: String(opts.agent),
        seat: str(opts.seat),
        assignee: str(opts.assignee),
        model: str(opts.model),
        baseUrl: str(opts.baseUrl),
        apiKeyEnv: str(opts.apiKeyEnv),
        agentCommand: str(opts.agentCommand),
        hermes: str(opts.hermes),
        hermesHome: str(opts.hermesHome),
        hermesShare: str(opts.hermesShare),
        stateDir: str(opts.stateDir),
        config: str(opts.config),
        force: opts.force === true,
        doctor: opts.doctor !== false,
        user: str(opts.user),
      });
    });
  program
    .command("hubs")
    .description("the host's hub service: starts the hubs of seats with hermes.share: host (deploy/hermes-bridge-hubs.service)")
    .option("--share-dir <dir>", "the share directory it serves (default: the seats' default, as hermes.shareDir)")
    .option("--wait <seconds>", "do not serve: wait until a hub service answers there")
    .action(async (opts: { shareDir?: string; wait?: string }) => {
      const wait = opts.wait === undefined ? undefined : Number(opts.wait);
      if (wait !== undefined && !(wait > 0)) throw new ExitError(2, `hubs --wait: '${opts.wait}' is not a number of seconds`);
      code = await (await import("./hubs.js")).hubsCommand({ shareDir: opts.shareDir, wait });
    });
  program
    .command("task-tools")
    .description("MCP stdio server with this run's task tools (started by the bridge for CLI agents)")
    .action(async () => {
      const { serveTaskTools } = await import("../tools/mcp-server.js");
      await serveTaskTools(process.env);
    });
  const skill = program
    .command("skill")
    .description("print the agent protocol cheat sheet (skills/SKILL.md, an Agent Skill)")
    .action(() => {
      process.stdout.write(readFileSync(bundledFile("skills", "SKILL.md"), "utf8"));
    });
  skill
    .command("install")
    .description("install the skill where Claude Code, Codex or Hermes looks for skills")
    .option("--claude", "Claude Code: $CLAUDE_CONFIG_DIR (or ~/.claude)/skills/")
    .option("--codex", "Codex: $CODEX_HOME (or ~/.codex)/skills/")
    .option("--hermes", "Hermes: $HERMES_HOME (or ~/.hermes)/skills/")
    .option("--dir <dir>", "that agent's config dir instead of its default")
    .action(async (opts: { claude?: boolean; codex?: boolean; hermes?: boolean; dir?: string }) => {
      const { installSkill } = await import("./skill.js");
      const targets = (["claude", "codex", "hermes"] as const).filter((t) => opts[t] === true);
      for (const f of installSkill({ targets, dir: opts.dir }, process.env)) process.stdout.write(`installed ${f}\n`);
    });
  program
    .command("demo")
    .description("run the bridge on a temporary emulator board with a scripted demo agent")
    .option("--keep", "keep the temporary directory")
    .action(async (opts: { keep?: boolean }) => {
      code = await (await import("./demo.js")).demoCommand({ keep: opts.keep === true });
    });
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    const e = err as { code?: string; exitCode?: number };
    if (typeof e.code === "string" && e.code.startsWith("commander.")) return e.exitCode === 0 ? 0 : 2;
    const say = (s: string) => process.stderr.write(`hermes-bridge: ${escapeControls(s)}\n`);
    if (err instanceof ConfigError) {
      say(err.message);
      return 2;
    }
    if (err instanceof ExitError) {
      say(describeError(err));
      return err.exitCode;
    }
    say(describeError(err));
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
