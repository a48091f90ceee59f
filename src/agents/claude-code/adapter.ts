// Claude Code: `claude -p --input-format stream-json --output-format stream-json --verbose
// --replay-user-messages` with a per-run MCP config for the task tools (agent-cli-contracts.md §1.2,
// §1.8), `--resume <session>` to continue a cut run (§1.9: sessions are found by cwd, so the workspace
// path must be the same). The prompt is the first user message on stdin — never an argv element, so
// its size is not bounded by E2BIG — and stdin stays open while the agent works: an operator note
// becomes a user message (injected into the running turn, or a new turn), and Claude's replay of it
// says when the agent got it. Once every message sent is answered by a result, stdin is closed and
// Claude exits. cwd = workspace, per-seat CLAUDE_CONFIG_DIR, MCP_CONNECTION_NONBLOCKING=0, TZ=UTC.
import type { StdinWriter } from "../../process/runner.js";
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { capText } from "../../result/text.js";
import type { Clock } from "../../time/clock.js";
import { TOOLS_ENV } from "../../tools/env.js";
import { type ProcessAgentOptions, refusedResume, runCliAgent, runHome, runTools, seatJailNeeds, statefulTranslator } from "../cli-agent.js";
import { UUID } from "../json.js";
import { CLAUDE_HOME } from "./home.js";
import { noteIdsIn, renderNote } from "../../tools/notes.js";
import type { AgentAdapter, AgentEvent, AgentRunInput, RunPins } from "../port.js";
import { HEADLESS_ENV, disallowedTools } from "./headless.js";
import { atRest, initialClaudeState, replayedUserText, translateClaudeLine } from "./translate.js";

export interface ClaudeOptions extends ProcessAgentOptions {
  command: readonly string[];
  permissionMode: string;
  maxTurns: number;
  model?: string | undefined;
  allowedTools: readonly string[];
  /** `--setting-sources` (agent.settingSources): the workspace's settings files only where the operator says. */
  settingSources?: readonly string[] | undefined;
  /** The seat's login (CLAUDE_CONFIG_DIR of `claude auth login`): never shown to a run; its credentials go into each run's fresh home. */
  login: string;
  /** The operator's template of the CLI home (agent.cliHome), copied into each run's. */
  template?: string | undefined;
  /** Tries a login the run refreshed (one request of the bridge's own) before it replaces the seat's. */
  verifyLogin?: ((login: string) => Promise<boolean>) | undefined;
  appendSystemPrompt?: string | undefined;
  /** argv that starts `hermes-bridge task-tools`. */
  toolsCommand: readonly string[];
  clock: Clock;
}

/**
 * The CLI's argv for a run: a resumed session (`--resume`), else the session id the bridge chose before the start
 * (`--session-id`: journaled first, so a run cut before its first line is resumed too).
 */
export function claudeArgv(o: ClaudeOptions, mcpConfigFile: string, session: { resume: string } | { id: string }, pins?: RunPins): string[] {
  const argv = [
    ...o.command,
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--replay-user-messages",
    "--mcp-config",
    mcpConfigFile,
    "--strict-mcp-config",
    "--allowedTools",
    ["mcp__task", ...o.allowedTools].join(","),
    ...disallowed(o.allowedTools),
    "--permission-mode",
    o.permissionMode,
    "--max-turns",
    String(o.maxTurns),
    "--setting-sources",
    (o.settingSources ?? ["user"]).join(","),
  ];
  if ("resume" in session) argv.push("--resume", session.resume);
  else argv.push("--session-id", session.id);
  // The task's pinned model over the seat's; its skills as a plugin of this run only (never the workspace).
  const model = pins?.model ?? o.model;
  if (model) argv.push("--model", model);
  if (pins?.staged) argv.push("--plugin-dir", pins.staged.root);
  if (o.appendSystemPrompt) argv.push("--append-system-prompt", o.appendSystemPrompt);
  return argv;
}

const disallowed = (allowed: readonly string[]) => {
  const off = disallowedTools(allowed);
  return off.length ? ["--disallowedTools", off.join(",")] : [];
};

/** One stream-json input line: a user message. */
export const userMessage = (text: string) => `${JSON.stringify({ type: "user", message: { role: "user", content: text } })}\n`;

export class ClaudeCodeAgent implements AgentAdapter {
  readonly name = "claude-code";
  readonly usesTools = true;
  readonly resumable = true;
  readonly notesVia = "input" as const;
  readonly skillsAsPlugin = true;
  readonly providers = ["anthropic", "claude"] as const;
  readonly model: string | undefined;
  verifyLogin(login: string): Promise<boolean> {
    return this.o.verifyLogin ? this.o.verifyLogin(login) : Promise.resolve(false);
  }
  constructor(private readonly o: ClaudeOptions) {
    this.model = o.model;
  }

  run(input: AgentRunInput): AsyncGenerator<AgentEvent> {
    if (input.resume && !UUID.test(input.resume.session)) return refusedResume(input, input.resume.session, this.name);
    const tools = runTools(input, this.name);
    const home = runHome(input, { layout: CLAUDE_HOME, login: this.o.login, template: this.o.template, verifyLogin: this.o.verifyLogin });
    const mcp = join(input.runDir, "mcp.json");
    const [cmd = "node", ...args] = this.o.toolsCommand;
    const toolsEnv = { [TOOLS_ENV.socket]: tools.socketPath, [TOOLS_ENV.token]: tools.token };
    // sync-io: the run's fresh dir, before the agent starts
    writeFileSync(mcp, JSON.stringify({ mcpServers: { task: { type: "stdio", command: cmd, args, env: toolsEnv } } }), { mode: 0o600 });
    const env: Record<string, string> = {
      ...this.o.baseEnv,
      ...HEADLESS_ENV,
      MCP_CONNECTION_NONBLOCKING: "0",
      CLAUDE_CONFIG_DIR: home.home,
      TZ: "UTC",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      HERMES_BRIDGE_TASK_ID: input.taskId,
      // The jail's network is the seat's proxy: the API is reached through it, the key put in there.
      ...(input.egress ? { ANTHROPIC_BASE_URL: input.egress.apiBase } : {}),
    };
    if (process.getuid?.() === 0 && this.o.permissionMode === "bypassPermissions") env.IS_SANDBOX = "1";
    const channel = new ClaudeChannel(input, this.o.promptMaxBytes);
    // A fresh run's session id is the bridge's choice, journaled before the CLI starts (restart recovery resumes it).
    const chosen = input.resume ? null : randomUUID();
    let session: string | null = chosen;
    let state = initialClaudeState("task");
    const translate = statefulTranslator(
      state,
      (s, line) => {
        const r = translateClaudeLine(s, line, this.o.clock.now());
        session = r.state.sessionId ?? session;
        state = r.state;
        return r;
      },
      atRest,
    );
    // A turn's failure (its turn cap) that another turn follows — a note taken while it worked (2.1.205+ runs it at
    // the cap) — is that turn's, not the run's: held until the run ends, dropped when a later result comes.
    let held: AgentEvent[] = [];
    const run = runCliAgent({
      argv: claudeArgv(this.o, mcp, input.resume ? { resume: input.resume.session } : { id: chosen ?? randomUUID() }, input.pins),
      env,
      input,
      jailNeeds: seatJailNeeds(this.o.command, [mcp]),
      before: home.before,
      after: async () => [...held, ...(await home.after([session, input.resume?.session]))],
      o: this.o,
      stdin: channel,
      translate: (line) => {
        channel.seen(line);
        const t = translate(line);
        if (!state.atResult) return { events: t.events, terminal: false };
        // A result ends the run only when every message sent was taken: a note sent late is the next turn.
        const more = !channel.settled() || state.queued > 0;
        held = more ? t.events.filter((e) => e.type === "failed") : [];
        return { events: more ? t.events.filter((e) => e.type !== "failed") : t.events, terminal: t.terminal && !more };
      },
    });
    return chosen ? sessionFirst(chosen, run) : run;
  }
}

/** The chosen session, told before anything of the run starts (the pump starts its process at the first pull). */
async function* sessionFirst(id: string, run: AsyncGenerator<AgentEvent>): AsyncGenerator<AgentEvent> {
  yield { type: "session", id };
  yield* run;
}

/** The held-open stdin of one Claude run: the prompt, then operator notes until the agent is done. */
class ClaudeChannel {
  private w: StdinWriter | null = null;
  /** The pipe is full: the next note waits for it to drain (a comment storm never grows our buffer). */
  private waiting = false;
  /** Notes written to stdin and not yet replayed by Claude (not yet taken by the agent). */
  private readonly sent = new Set<string>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly input: AgentRunInput,
    private readonly promptMaxBytes: number,
  ) {}

  open(w: StdinWriter): void {
    this.w = w;
    const prompt = this.input.resume ? this.input.resume.prompt : this.input.prompt;
    if (!w.write(userMessage(capPrompt(prompt, this.promptMaxBytes)))) this.waitForDrain();
    this.unsubscribe = this.input.inbox?.onNote(() => this.flush());
    this.flush();
  }

  private waitForDrain(): void {
    this.waiting = true;
    this.w?.onDrain(() => {
      this.waiting = false;
      this.flush();
    });
  }

  /** Sends what the inbox holds, while the agent still takes input — one note at a time when the pipe is full. */
  private flush(): void {
    if (!this.w || this.w.ended || !this.input.inbox || this.waiting) return;
    for (const n of this.input.inbox.pending()) {
      if (this.sent.has(n.id)) continue;
      this.sent.add(n.id);
      if (!this.w.write(userMessage(renderNote(n)))) {
        this.waitForDrain();
        return;
      }
    }
  }

  /** Every stdout line: Claude's replay of a note is the moment the agent got it; a final result closes stdin. */
  seen(line: string): void {
    const replayed = replayedUserText(line);
    if (replayed !== null) {
      const ids = noteIdsIn(replayed).filter((id) => this.sent.delete(id));
      if (ids.length) this.input.inbox?.delivered(ids);
      return;
    }
    if (this.w && !this.w.ended && this.settled() && /"type"\s*:\s*"result"/.test(line)) {
      this.unsubscribe?.();
      this.w.end();
    }
  }

  /** Nothing sent is still waiting to be taken. */
  settled(): boolean {
    return this.sent.size === 0;
  }
}

const capPrompt = (p: string, max: number) => capText(p, max);
