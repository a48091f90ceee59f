// Shared by the continuity e2e files (real Claude Code and Codex CLIs, the local-LLM loop, against
// scripted model APIs): the two halves of a scripted piece of work, a short claim, the Claude seat's
// agent config, one `--once` pass of the bridge, and how a request's text and a block's reason are read.
import { join } from "node:path";
import { type Bridge, runBridge } from "./bridge.js";
import type { Emu, ShowDoc } from "./emulator.js";
import type { AnthropicMock, ScriptedTurn } from "./model-mocks.js";
import { CLAUDE, CODEX } from "./agent-clis.js";
export { CLAUDE };
export { CODEX };

export const GOOD = { ok: true, status: "ok", items: 1, metrics: { created: 1 }, note: "done", artifacts: [], error: null };
/** Run 1: one step of real work, then the model never answers (the run is cut while it waits). */
export const PART_ONE: ScriptedTurn[] = [
  { blocks: [{ text: "Step one: reading the code." }, { tool: "mcp__task__kanban_heartbeat", input: { note: "step one done" } }] },
  { hang: true },
];
/** Run 2: finishes. */
export const PART_TWO: ScriptedTurn[] = [
  { blocks: [{ tool: "mcp__task__kanban_complete", input: { summary: "Finished after resuming.", result: GOOD } }] },
  { blocks: [{ text: "Done." }] },
];
/** A short claim: run time 35 s, the polite stop before the deadline (the CLIs take seconds to start, many on a loaded machine: 20 s was not enough). */
export const SHORT = { claim: { ttlSeconds: 75, safetySeconds: 40 }, heartbeat: { intervalSeconds: 2 } };
/** For the run that is meant to complete after a cut: a resume (or a refused one and a fresh start) needs more than 20 s on a busy machine. */
export const ROOMY = { claim: { ttlSeconds: 180, safetySeconds: 40 } };

// The last block reason (a block that tripped Hermes's loop breaker carries it on block_loop_detected).
export const reasonOf = (doc: ShowDoc) => String(doc.events.findLast((e) => e.kind === "blocked" || e.kind === "block_loop_detected")?.payload?.reason ?? "");

export function claudeAgent(emu: Emu, mock: AnthropicMock, extra: Record<string, unknown> = {}) {
  return {
    kind: "claude-code",
    command: [CLAUDE],
    maxTurns: 10,
    configDir: join(emu.dir, "claude"),
    killGraceSeconds: 3,
    wrapUpSeconds: 6,
    env: { ANTHROPIC_BASE_URL: mock.baseUrl, CLAUDE_CODE_MAX_RETRIES: "0", ANTHROPIC_API_KEY: "sk-ant-mock", API_TIMEOUT_MS: "600000" },
    ...extra,
  };
}

/** One pass of the bridge (`--once`) on `emu` with a short claim. */
export async function once(emu: Emu, base: Record<string, unknown>): Promise<Bridge> {
  const b = await runBridge(emu, { base: { ...SHORT, seat: { limitMarginSeconds: 0 }, ...base } });
  await b.daemon.done;
  return b;
}

/** The text of every message of a request body (Anthropic or Responses shapes). */
export const textOf = (body: Record<string, unknown> | undefined) => JSON.stringify(body?.messages ?? body?.input ?? body ?? null);
