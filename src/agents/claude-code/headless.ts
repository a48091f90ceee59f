// What a bridge run of Claude Code is: one headless session bounded by its claim, with the close tools in the
// model's hands from its first turn and nothing that outlives the run. Read off the pinned CLI's own first
// request and tool list (2.1.332; docs/agents.md "Claude Code, as the bridge runs it").

/**
 * The CLI's environment for a run:
 * - `ENABLE_TOOL_SEARCH=false`: 2.1.332 defers MCP tools behind its ToolSearch — the first request lists
 *   `ToolSearch` and `DeferredToolPlaceholder` and none of the task tools, so a model must search before it can
 *   close. The task tools are the protocol: they are loaded into the first request.
 * - `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1`: since 2.1.198 subagents run in the background by default (and Bash
 *   takes `run_in_background`): a run would end its turn while its work goes on. With it a subagent's report is
 *   its tool's answer, and `run_in_background` is not offered. (Whatever still runs in the background — a
 *   workflow — is followed on the stream: translate.ts, and a run is not judged while it runs.)
 */
export const HEADLESS_ENV: Readonly<Record<string, string>> = {
  ENABLE_TOOL_SEARCH: "false",
  CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: "1",
};

/**
 * Tools that outlive the run or reach other sessions: not offered to a run (`--disallowedTools`) unless
 * `agent.allowedTools` names one. A run is bounded by its lease: nothing it starts may wake later, and no other
 * session may talk into (or be driven from) a jailed run.
 */
export const LASTING_TOOLS: readonly string[] = [
  "CronCreate", // a prompt enqueued at a later time (cron), maybe durable across sessions
  "CronDelete",
  "CronList",
  "ScheduleWakeup", // the session resumes itself later (/loop's self-pacing)
  "Monitor", // a background script whose lines wake the agent on their own schedule
  "SubscribePR", // events of a pull request, delivered later
  "RemoteTrigger", // starts a session in the cloud
  "PushNotification", // reaches the user's devices
  "SendMessage", // messages to other sessions, teammates, cloud sessions (2.1.224)
  "ListAgents", // lists the local and cloud sessions it could message
  "TeamCreate", // agent teams: sessions of their own
  "TeamDelete",
];

/** The `--disallowedTools` of a run: the lasting tools the seat did not opt into by name. */
export function disallowedTools(allowed: readonly string[]): string[] {
  return LASTING_TOOLS.filter((t) => !allowed.includes(t));
}
