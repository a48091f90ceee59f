// Continuity with the real Claude Code CLI (pinned dev dep) against a scripted model API on 127.0.0.1:
// a run cut after part of the work (deadline, a bridge SIGKILL) is resumed on the next claim — the
// scripted server sees the first run's messages in the FIRST request of the second run — and completes;
// a session that cannot be resumed starts fresh. Codex and the local loop: continuity-others.test.ts;
// a usage-limit cut: limits.test.ts.
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { killGroup, runProcess } from "../../src/process/runner.js";
import { SEAT } from "../helpers/bridge.js";
import { CLAUDE, claudeAgent, once, PART_ONE, PART_TWO, ROOMY, reasonOf, textOf } from "../helpers/continuity.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";
import { AnthropicMock } from "../helpers/model-mocks.js";

let emu: Emu;
let mocks: { close(): Promise<void> }[] = [];
afterEach(async () => {
  emu?.cleanup();
  for (const m of mocks) await m.close();
  mocks = [];
});

describe("continuity with the real Claude Code CLI", () => {
  it("cut at its deadline, unblocked, resumed: the second run's first request carries the first run's conversation", async () => {
    emu = await Emu.create();
    const mock = await new AnthropicMock(PART_ONE).start();
    mocks.push(mock);
    const id = await emu.createTask("long job", { assignee: SEAT, body: "Do the long job." });
    await once(emu, { agent: claudeAgent(emu, mock) });
    const cut = await emu.show(id);
    expect(cut.task.status).toBe("blocked");
    const reason = reasonOf(cut);
    expect(reason).toMatch(/did not finish before its deadline/);
    expect(reason).toMatch(/Last progress note: "step one done"|Last progress note: "Step one: reading the code."/);
    const session = /session: (\S+) — unblock to continue; the next run of this seat resumes session \1/.exec(reason)?.[1];
    expect(session).toBeDefined();
    await emu.kanban(["unblock", "--reason", "take your time", id]);
    mock.push(...PART_TWO);
    const before = mock.mainBodies.length;
    await once(emu, { agent: claudeAgent(emu, mock), ...ROOMY });
    const done = await emu.show(id);
    expect(done.task.status).toBe("done");
    const first = textOf(mock.mainBodies[before]);
    expect(first).toContain("Step one: reading the code.");
    expect(first).toContain("take your time");
    expect(done.runs.at(-1)?.metadata).toMatchObject({ bridge: { session: { id: session, resumed: true }, agent: "claude-code" } });
  }, 120_000);

  it("after a bridge SIGKILL (and its agent gone with the host), the restarted seat continues the run, resuming the session", async () => {
    emu = await Emu.create();
    const mock = await new AnthropicMock(PART_ONE).start();
    mocks.push(mock);
    const id = await emu.createTask("crash job", { assignee: SEAT, body: "Do it." });
    const cfg = join(emu.dir, "seat.yaml");
    const agent = { ...claudeAgent(emu, mock), command: [CLAUDE] };
    writeFileSync(
      cfg,
      JSON.stringify({
        boards: ["bridge"],
        assignee: SEAT,
        hermes: { command: emu.command, home: emu.home, callServer: "on" },
        agent,
        stateDir: join(emu.dir, "state"),
        discovery: { watch: false },
        claim: { ttlSeconds: 600 },
      }),
    );
    const lines: Record<string, unknown>[] = [];
    let pid = 0;
    let agentPid = 0;
    let sawNote: () => void = () => undefined;
    const noted = new Promise<void>((r) => {
      sawNote = r;
    });
    const first = runProcess({
      argv: [process.execPath, CLI_BIN, "run", "--config", cfg, "--log-format", "json"],
      env: { PATH: process.env.PATH ?? "", HOME: emu.dir },
      onSpawn: (p) => {
        pid = p;
      },
      onStdoutLine: (l) => {
        try {
          lines.push(JSON.parse(l) as Record<string, unknown>);
        } catch {
          return;
        }
        const last = lines.at(-1);
        if (last?.msg === "agent started") agentPid = Number(last.agent_pid);
      },
    });
    // Wait until the first step is on the board AND in the agent's own transcript, then kill the bridge
    // and its agent. Claude Code writes its session file behind the conversation: a SIGKILL right after
    // the heartbeat lands can lose the step from the session (seen on CI) — that is the CLI's loss, not
    // what this test is about.
    const poll = setInterval(async () => {
      const d = await emu.show(id).catch(() => null);
      const onBoard = d?.events.some((e) => e.kind === "heartbeat" && e.payload?.note === "step one done");
      // (the transcript is in the run's own CLI home, under the run's dir)
      if (onBoard && sessionHolds(join(emu.dir, "state", "runs"), ["Step one: reading the code.", '"tool_result"'])) sawNote();
    }, 500);
    await noted;
    clearInterval(poll);
    process.kill(pid, "SIGKILL");
    killGroup(agentPid, "SIGKILL");
    await first;
    // The restart continues the task by itself, in the same run (nobody unblocks anything): it resumes the session.
    mock.replace(...PART_TWO);
    const before = mock.mainBodies.length;
    const restart = await runProcess({
      argv: [process.execPath, CLI_BIN, "run", "--once", "--config", cfg, "--log-format", "json"],
      env: { PATH: process.env.PATH ?? "", HOME: emu.dir },
      timeoutMs: 90_000,
    });
    expect(restart.exitCode).toBe(0);
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect(d.events.filter((e) => e.kind === "blocked")).toEqual([]);
    expect(d.runs).toHaveLength(1);
    expect(textOf(mock.mainBodies[before])).toContain("Step one: reading the code.");
  }, 180_000);

  it("a session that cannot be resumed starts fresh with the earlier summaries, and says so", async () => {
    emu = await Emu.create();
    const mock = await new AnthropicMock(PART_ONE).start();
    mocks.push(mock);
    const id = await emu.createTask("lost session", { assignee: SEAT, body: "Do it." });
    await once(emu, { agent: claudeAgent(emu, mock) });
    // the task's saved transcript (what its next run's fresh CLI home would get) is gone
    rmSync(join(emu.dir, "state", "sessions", `${emu.slug}__${id}`, "transcript"), { recursive: true, force: true });
    await emu.kanban(["unblock", id]);
    mock.push(...PART_TWO);
    // The run that completes gets room (a refused resume and a fresh start are two CLI starts; on a busy
    // machine more than SHORT's 20 s): only the first run is meant to be cut.
    await once(emu, { agent: claudeAgent(emu, mock), ...ROOMY });
    const done = await emu.show(id);
    // (the last block's reason, when it is not done: says why)
    expect({ status: done.task.status, why: done.task.status === "done" ? "" : reasonOf(done) }).toEqual({ status: "done", why: "" });
    expect(done.comments.map((c) => c.body).join("\n")).toMatch(/could not resume the agent's session \S+ \(No conversation found.*started a fresh session/);
    expect(done.runs.at(-1)?.metadata).toMatchObject({ bridge: { session: { resumed: false } } });
  }, 120_000);
});

/** Whether one of the session transcripts (`*.jsonl`) under `dir` holds every one of `needles`. */
function sessionHolds(dir: string, needles: string[]): boolean {
  let files: string[];
  try {
    files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
  } catch {
    return false;
  }
  return files.some((f) => {
    const text = readFileSync(join(dir, f), "utf8");
    return needles.every((n) => text.includes(n));
  });
}
