// Codex: `codex exec --json --skip-git-repo-check -C <ws> -s <sandbox>` with the task tools as a
// required MCP server given by -c overrides (agent-cli-contracts.md §2.2, §2.7). Codex does not
// pass its environment to MCP servers: the socket and token go in mcp_servers.task.env.
import { join } from "node:path";
import type { Clock } from "../../time/clock.js";
import { prepareSeatRun, runCliAgent, statefulTranslator } from "../cli-agent.js";
import { type AgentAdapter, type AgentEvent, type AgentRunInput, agentEnv } from "../port.js";
import { initialCodexState, translateCodexLine } from "./translate.js";

export interface CodexOptions {
  command: readonly string[];
  sandbox: string;
  model?: string | undefined;
  home: string;
  extraConfig: readonly string[];
  env: Readonly<Record<string, string>>;
  passEnv: readonly string[];
  parentEnv: NodeJS.ProcessEnv;
  toolsCommand: readonly string[];
  /** The protocol text (prompts/codex.md) put before the task prompt: Codex has no system-prompt flag. */
  protocol: string;
  killGraceMs: number;
  outputCapBytes: number;
  clock: Clock;
}

const toml = (s: string) => JSON.stringify(s); // TOML basic strings share JSON's escaping for these values

export function codexArgv(o: CodexOptions, input: Pick<AgentRunInput, "workspace" | "runDir" | "prompt">, tools: { socketPath: string; token: string }): string[] {
  const [cmd = "node", ...args] = o.toolsCommand;
  const argv = [
    ...o.command,
    "exec",
    "--json",
    "--skip-git-repo-check",
    "-C",
    input.workspace,
    "-s",
    o.sandbox,
    "-c",
    `mcp_servers.task.command=${toml(cmd)}`,
    "-c",
    `mcp_servers.task.args=[${args.map(toml).join(",")}]`,
    "-c",
    `mcp_servers.task.env={HERMES_BRIDGE_TOOLS_SOCKET=${toml(tools.socketPath)},HERMES_BRIDGE_TOOLS_TOKEN=${toml(tools.token)}}`,
    "-c",
    'mcp_servers.task.default_tools_approval_mode="approve"',
    "-c",
    "mcp_servers.task.required=true",
  ];
  for (const c of o.extraConfig) argv.push("-c", c);
  if (o.model) argv.push("-m", o.model);
  argv.push("-o", join(input.runDir, "last-message.txt"), "--", input.prompt);
  return argv;
}

export class CodexAgent implements AgentAdapter {
  readonly name = "codex";
  readonly usesTools = true;
  readonly model: string | undefined;
  constructor(private readonly o: CodexOptions) {
    this.model = o.model;
  }

  run(input: AgentRunInput): AsyncIterable<AgentEvent> {
    const tools = prepareSeatRun(input, this.o.home, this.name);
    return runCliAgent({
      argv: codexArgv(this.o, { ...input, prompt: `${this.o.protocol}\n\n${input.prompt}` }, tools),
      env: { ...agentEnv(this.o.parentEnv, this.o.passEnv, this.o.env), CODEX_HOME: this.o.home, TZ: "UTC", HERMES_BRIDGE_TASK_ID: input.taskId },
      input,
      killGraceMs: this.o.killGraceMs,
      outputCapBytes: this.o.outputCapBytes,
      translate: statefulTranslator(initialCodexState(), (s, line) => translateCodexLine(s, line, this.o.clock.now()), (s) => s.terminal !== null),
    });
  }
}
