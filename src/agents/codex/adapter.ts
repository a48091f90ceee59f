// Codex: `codex exec --json --skip-git-repo-check -C <ws> -s <sandbox>` with the task tools as a
// required MCP server given by -c overrides (agent-cli-contracts.md §2.2, §2.7), and
// `codex exec -C <ws> resume <thread_id>` (never --last) to continue a cut run; `resume` has no -s,
// so its sandbox is set with `-c sandbox_mode=…`. Codex does not pass its environment to MCP
// servers: the socket and token go in mcp_servers.task.env. The prompt is read from stdin (`-`), never
// an argv element (its size is not bounded by E2BIG). Codex has no live input: operator notes reach it
// appended to the answer of its next task-tool call (tools/host.ts).
import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { capText } from "../../result/text.js";
import { RUN_HOME, skillsInvocation } from "../../skills/stage.js";
import type { Clock } from "../../time/clock.js";
import { TOOLS_ENV } from "../../tools/env.js";
import { type ProcessAgentOptions, refusedResume, runCliAgent, runHome, runTools, seatJailNeeds, statefulTranslator } from "../cli-agent.js";
import { UUID } from "../json.js";
import { customProviderOf } from "./provider.js";
import { codexNativeImages } from "./native.js";
import { CODEX_HOME } from "./home.js";
import type { AgentAdapter, AgentEvent, AgentRunInput } from "../port.js";
import { CODEX_RESUME_FAILED, type CodexState, initialCodexState, translateCodexLine } from "./translate.js";

export interface CodexOptions extends ProcessAgentOptions {
  command: readonly string[];
  sandbox: string;
  model?: string | undefined;
  /** The seat's login (the CODEX_HOME of `codex login`): never shown to a run; its auth.json goes into each run's fresh home. */
  login: string;
  /** The operator's template of the CLI home (agent.cliHome: config.toml, AGENTS.md), copied into each run's. */
  template?: string | undefined;
  /** Tries a login the run refreshed (one request of the bridge's own) before it replaces the seat's. */
  verifyLogin?: ((login: string) => Promise<boolean>) | undefined;
  extraConfig: readonly string[];
  toolsCommand: readonly string[];
  /** The protocol text (prompts/codex.md) put before the task prompt: Codex has no system-prompt flag. */
  protocol: string;
  clock: Clock;
}

const toml = (s: string) => JSON.stringify(s); // TOML basic strings share JSON's escaping for these values

/**
 * Codex's own sandbox is bubblewrap too, and cannot nest inside the bridge's jail (it cannot map its
 * uids there): in the jail, which already keeps every write in the workspace, Codex runs its commands
 * without a sandbox of its own. `read-only` stays as asked (its commands then cannot start).
 */
export function codexSandbox(o: Pick<CodexOptions, "sandbox">, jailed: boolean): string {
  return jailed && o.sandbox === "workspace-write" ? "danger-full-access" : o.sandbox;
}

export function codexArgv(
  o: CodexOptions,
  input: Pick<AgentRunInput, "workspace" | "runDir" | "jail" | "pins" | "egress">,
  tools: { socketPath: string; token: string },
  resume?: string,
): string[] {
  const [cmd = "node", ...args] = o.toolsCommand;
  const argv = [...o.command, "exec", "-C", input.workspace];
  const sandbox = codexSandbox(o, input.jail?.mode === "bwrap");
  if (resume) argv.push("resume", resume, "-c", `sandbox_mode=${toml(sandbox)}`);
  else argv.push("-s", sandbox);
  argv.push(
    "--json",
    "--skip-git-repo-check",
    "-c",
    `mcp_servers.task.command=${toml(cmd)}`,
    "-c",
    `mcp_servers.task.args=[${args.map(toml).join(",")}]`,
    "-c",
    `mcp_servers.task.env={${TOOLS_ENV.socket}=${toml(tools.socketPath)},${TOOLS_ENV.token}=${toml(tools.token)}}`,
    "-c",
    'mcp_servers.task.default_tools_approval_mode="approve"',
    "-c",
    "mcp_servers.task.required=true",
  );
  for (const c of o.extraConfig) argv.push("-c", c);
  // The jail's network is the seat's proxy: a custom provider's base URL is the relay's (its key put in there).
  const provider = customProviderOf(o.extraConfig);
  if (input.egress && provider) argv.push("-c", `model_providers.${provider.name}.base_url=${toml(input.egress.apiBase)}`);
  const model = input.pins?.model ?? o.model;
  if (model) argv.push("-m", model);
  // `-`: the prompt is read from stdin (then closed).
  argv.push("-o", join(input.runDir, "last-message.txt"), "--", "-");
  return argv;
}

/** The run's own HOME for Codex (made here: a run without skills has none yet). */
function runOwnHome(runDir: string): string {
  const home = join(runDir, RUN_HOME);
  // sync-io: a folder of the bridge's own run dir, made before the agent starts
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return home;
}

export class CodexAgent implements AgentAdapter {
  readonly name = "codex";
  readonly usesTools = true;
  readonly resumable = true;
  readonly notesVia = "tools" as const;
  readonly providers = ["openai", "openai-codex", "codex"] as const;
  readonly model: string | undefined;
  verifyLogin(login: string): Promise<boolean> {
    return this.o.verifyLogin ? this.o.verifyLogin(login) : Promise.resolve(false);
  }
  constructor(private readonly o: CodexOptions) {
    this.model = o.model;
  }

  run(input: AgentRunInput): AsyncGenerator<AgentEvent> {
    if (input.resume && !UUID.test(input.resume.session)) return refusedResume(input, input.resume.session, this.name);
    const tools = runTools(input, this.name);
    const cli = runHome(input, { layout: CODEX_HOME, login: this.o.login, template: this.o.template, verifyLogin: this.o.verifyLogin });
    let state: CodexState = initialCodexState();
    // The run's own HOME: Codex finds the task's skills (staged there, run/prepare/pins.ts) in its user scope
    // (`$HOME/.agents/skills`) and no others of the host; the first prompt invokes them by name.
    const home = runOwnHome(input.runDir);
    const skills = input.pins?.skills.length ? `\n\n${skillsInvocation(input.pins.skills)}` : "";
    const prompt = input.resume ? input.resume.prompt : `${this.o.protocol}${skills}\n\n${input.prompt}`;
    return runCliAgent({
      argv: codexArgv(this.o, input, tools, input.resume?.session),
      stdin: capText(prompt, this.o.promptMaxBytes),
      env: {
        ...this.o.baseEnv,
        HOME: home,
        CODEX_HOME: cli.home,
        TZ: "UTC",
        HERMES_BRIDGE_TASK_ID: input.taskId,
        ...(input.egress && !customProviderOf(this.o.extraConfig) ? { OPENAI_BASE_URL: input.egress.apiBase } : {}),
      },
      input,
      jailNeeds: { ...seatJailNeeds(this.o.command), home, images: codexNativeImages(this.o.command[0] ?? "", this.o.baseEnv.PATH, input.workspace) },
      before: cli.before,
      o: this.o,
      translate: statefulTranslator(
        initialCodexState(),
        (s, line) => {
          const r = translateCodexLine(s, line, this.o.clock.now());
          state = r.state;
          return r;
        },
        (s) => s.terminal !== null,
      ),
      after: async (end) => [
        ...(await cli.after([state.threadId, input.resume?.session])),
        ...(input.resume && state.threadId === null && CODEX_RESUME_FAILED.test(end.stderrTail)
          ? [{ type: "resume_failed" as const, message: end.stderrTail.trim().split("\n")[0]?.slice(0, 300) ?? "resume failed" }]
          : []),
      ],
    });
  }
}
