// The generic command agent: runs the configured argv in the workspace (own process group, stdin =
// the rendered prompt, output drained and capped), then reads the outcome file it wrote. Its polite
// stop is SIGTERM (then the kill ladder); it may declare a resumable session in
// $HERMES_BRIDGE_SESSION_FILE (read even when the run is cut) or as "session" in its outcome file.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { capText } from "../../result/text.js";
import { type ProcessAgentOptions, commandFiles, runCliAgent } from "../cli-agent.js";
import { AppendOnlyFile } from "../../agent-files/append.js";
import { readSmallFile } from "../../state/read.js";
import { noteLine } from "../../tools/notes.js";
import { outcomeFileEvents, sessionId } from "../outcome.js";
import type { AgentAdapter, AgentEvent, AgentRunInput } from "../port.js";

export interface CommandAgentOptions extends ProcessAgentOptions {
  command: readonly string[];
}

export const COMMAND_ENV = {
  taskId: "HERMES_BRIDGE_TASK_ID",
  runId: "HERMES_BRIDGE_RUN_ID",
  workspace: "HERMES_BRIDGE_WORKSPACE",
  context: "HERMES_BRIDGE_CONTEXT",
  result: "HERMES_BRIDGE_RESULT",
  sessionFile: "HERMES_BRIDGE_SESSION_FILE",
  inbox: "HERMES_BRIDGE_INBOX",
  resumeSession: "HERMES_BRIDGE_RESUME_SESSION",
  /** The task's pinned model and provider (set only when the task pins them). */
  model: "HERMES_BRIDGE_MODEL",
  provider: "HERMES_BRIDGE_PROVIDER",
  /** The task's skills: a JSON list of SKILL.md paths (set only when the task names skills). */
  skills: "HERMES_BRIDGE_SKILLS",
} as const;

export class CommandAgent implements AgentAdapter {
  readonly name = "command";
  readonly resumable = true;
  readonly notesVia = "input" as const;
  constructor(private readonly o: CommandAgentOptions) {}

  async *run(input: AgentRunInput): AsyncGenerator<AgentEvent> {
    const sessionFile = join(input.runDir, "session");
    const inboxFile = join(input.runDir, "inbox.jsonl");
    const stopInbox = await openInbox(input, inboxFile);
    const env: Record<string, string> = {
      ...this.o.baseEnv,
      [COMMAND_ENV.taskId]: input.taskId,
      [COMMAND_ENV.runId]: input.runId === null ? "" : String(input.runId),
      [COMMAND_ENV.workspace]: input.workspace,
      [COMMAND_ENV.context]: input.contextFile,
      [COMMAND_ENV.result]: input.resultFile,
      [COMMAND_ENV.sessionFile]: sessionFile,
      [COMMAND_ENV.inbox]: inboxFile,
    };
    if (input.resume) env[COMMAND_ENV.resumeSession] = input.resume.session;
    const pins = input.pins;
    if (pins?.model) env[COMMAND_ENV.model] = pins.model;
    if (pins?.provider) env[COMMAND_ENV.provider] = pins.provider;
    if (pins?.skills.length) env[COMMAND_ENV.skills] = JSON.stringify(pins.skills.map((s) => s.file));
    yield* runCliAgent({
      argv: [...this.o.command],
      env,
      input,
      // The inbox is the bridge's to write: read-only in the jail (the agent cannot swap it).
      jailNeeds: { readOnlyOver: [inboxFile], readOnly: commandFiles(this.o.command) },
      o: this.o,
      stdin: capText(input.resume ? input.resume.prompt : input.prompt, this.o.promptMaxBytes),
      translate: (line) => {
        const note = line.trim();
        return { events: note ? [{ type: "progress", note: note.slice(0, 500) }] : [], terminal: false };
      },
      after: async () => {
        await stopInbox();
        const out = await outcomeFileEvents(input.resultFile);
        if (out.session) return out.events;
        const declared = await readSmallFile(sessionFile, 4096);
        const id = "text" in declared ? sessionId(declared.text) : null;
        return id ? [{ type: "session", id }, ...out.events] : out.events;
      },
    });
  }
}

/**
 * The command agent's inbox: notes appended as JSON lines to a file it is told of (HERMES_BRIDGE_INBOX)
 * the moment they arrive — a note is delivered once it is in the file. The file is the bridge's
 * (agent-files/append.ts): made before the agent starts and written only through the held descriptor.
 */
async function openInbox(input: AgentRunInput, file: string): Promise<() => Promise<void>> {
  // An earlier attempt of this run (run/work/retry.ts) left its inbox: the name goes (never followed), a fresh file is made.
  await rm(file, { force: true });
  const out = await AppendOnlyFile.create(file);
  const inbox = input.inbox;
  if (!inbox) return () => out.close();
  const taken = new Set<string>();
  const flush = () => {
    const notes = inbox.pending().filter((n) => !taken.has(n.id));
    if (notes.length === 0) return;
    for (const n of notes) taken.add(n.id);
    out.append(notes.map(noteLine).join("")).then(
      () => inbox.delivered(notes.map((n) => n.id)),
      () => undefined,
    );
  };
  flush();
  const unsubscribe = inbox.onNote(flush);
  return async () => {
    unsubscribe();
    await out.close();
  };
}
