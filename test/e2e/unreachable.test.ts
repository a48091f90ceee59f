// Issue 38 row 3 with the real Claude Code and Codex CLIs pointed at a dead port: the run is stopped
// within agent.unreachableSeconds (never waiting out its deadline, never blocked as "deadline"), the task
// goes back to the lane with a templated environment comment, and the seat pauses until its own check gets
// through. In the jail the run's proxy sees the dead port itself (the bridge's own observation); unjailed,
// the CLIs' own no-answer signals say it.
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { CLAUDE, CODEX } from "../helpers/continuity.js";
import { Emu } from "../helpers/emulator.js";

let emu: Emu | undefined;
afterEach(() => {
  emu?.cleanup();
  emu = undefined;
});

/** A port nothing listens on (taken, then closed). */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const agents = (e: Emu, base: string) => ({
  "claude-code": {
    kind: "claude-code",
    command: [CLAUDE],
    configDir: join(e.dir, "claude"),
    env: { ANTHROPIC_BASE_URL: base, ANTHROPIC_API_KEY: "sk-ant-mock", CLAUDE_CODE_MAX_RETRIES: "2" },
  },
  codex: {
    kind: "codex",
    command: [CODEX],
    model: "mock-model",
    home: join(e.dir, "codex"),
    config: ['model_provider="mock"', `model_providers.mock={name="mock",base_url="${base}/v1",wire_api="responses"}`],
    env: { OPENAI_API_KEY: "sk-mock" },
  },
});

describe.each(["claude-code", "codex"] as const)("the real %s CLI against a dead port", (kind) => {
  it("is stopped, the task handed back (not blocked, not 'deadline'), the seat paused naming it", async () => {
    emu = await Emu.create();
    const base = `http://127.0.0.1:${await deadPort()}`;
    const id = await emu.createTask(`${kind} dead port`, { assignee: SEAT, body: "do the thing" });
    const b = await runBridge(emu, {
      base: {
        claim: { ttlSeconds: 600, safetySeconds: 30 },
        agent: { ...agents(emu, base)[kind], killGraceSeconds: 3, unreachableSeconds: 5 },
      },
    });
    await b.daemon.done;
    const d = await emu.show(id);
    expect(d.task.status, JSON.stringify(d.events.at(-1))).toBe("ready");
    expect(d.events.map((e) => e.kind)).not.toContain("blocked");
    expect(d.events.find((e) => e.kind === "reclaimed")?.payload?.reason).toMatch(/^environment: the agent of seat test-seat could not reach its API/);
    expect(d.comments.at(-1)?.body).toMatch(/^cause: environment$/m);
    expect(b.reports[0]?.unreachable).toBeTruthy();
    expect(b.daemon.status().seat.reason).toMatch(/^the agent could not reach its API/);
  }, 120_000);
});
