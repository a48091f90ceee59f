// A usage-limit cut with the real Claude Code CLI against a scripted model that answers a subscription
// limit after one step of work, continued without an operator (seat.onLimit): `wait` — the seat parks
// the task and resumes its own session after the reset; `handoff` — another seat of the lane completes it.
import { afterEach, describe, expect, it } from "vitest";
import { type Bridge, runBridge, SEAT } from "../helpers/bridge.js";
import { claudeAgent, PART_ONE, PART_TWO, SHORT, textOf } from "../helpers/continuity.js";
import { Emu } from "../helpers/emulator.js";
import { AnthropicMock, type ScriptedTurn } from "../helpers/model-mocks.js";

let emu: Emu;
let mocks: { close(): Promise<void> }[] = [];
afterEach(async () => {
  emu?.cleanup();
  for (const m of mocks) await m.close();
  mocks = [];
});

describe("a usage limit of a Claude Code seat", () => {
  /** A Claude seat whose model answers a subscription limit (reset `inS` after the answer) after one step of work. */
  async function limitedClaude(inS: number) {
    const limited: ScriptedTurn = {
      status: 429,
      body: { type: "error", error: { type: "rate_limit_error", message: "rate limited" } },
      // The reset is counted from the answer, not from the test's start: a loaded machine must not
      // turn it into a time that already passed (which the seat replaces with a 15-minute wait).
      headers: () => {
        const reset = Math.floor(Date.now() / 1000) + inS;
        return {
          "anthropic-ratelimit-unified-status": "rejected",
          "anthropic-ratelimit-unified-reset": String(reset),
          "anthropic-ratelimit-unified-representative-claim": "five_hour",
          "anthropic-ratelimit-unified-5h-status": "rejected",
          "anthropic-ratelimit-unified-5h-reset": String(reset),
        };
      },
    };
    const mock = await new AnthropicMock([PART_ONE[0] as ScriptedTurn, limited, limited, limited]).start();
    mocks.push(mock);
    const agent = claudeAgent(emu, mock, {
      env: { ANTHROPIC_BASE_URL: mock.baseUrl, CLAUDE_CODE_MAX_RETRIES: "0", CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-mock" },
    });
    return { mock, agent };
  }

  it("cut by a usage limit (seat.onLimit: wait): the seat parks the task, resumes its session after the reset, no operator", async () => {
    emu = await Emu.create();
    const { mock, agent } = await limitedClaude(6);
    const id = await emu.createTask("limited job", { assignee: SEAT, body: "Do it." });
    let before = 0;
    const b = await runBridge(emu, {
      once: false,
      base: {
        ...SHORT,
        claim: { ttlSeconds: 900, safetySeconds: 40 }, // (nothing here is cut at its deadline: room for a loaded machine)
        agent,
        seat: { name: "seat-a", limitMarginSeconds: 0, onLimit: "wait" },
        discovery: { watch: true, sweepSeconds: 3600, debounceMs: 20 },
      },
    });
    try {
      const cut = await new Promise<{ handedOff?: string }>((r) =>
        b.daemon.once("run:closed", (rep) => {
          // The model has headroom again after the reset: the rest of the script.
          before = mock.mainBodies.length;
          mock.replace(...PART_TWO);
          r(rep);
        }),
      );
      expect(cut.handedOff, JSON.stringify(cut)).toBe("wait");
      const done = new Promise<void>((r) => b.daemon.on("run:closed", (rep) => rep.taskId === id && rep.close === "applied" && r()));
      await done;
      const doc = await emu.show(id);
      expect(doc.task.status).toBe("done");
      expect(doc.runs.map((r) => r.outcome)).toEqual(["scheduled", "completed"]);
      expect(doc.events.map((e) => e.kind)).not.toContain("blocked");
      // The resumed run's first request carries the first run's work: the same session, continued.
      expect(textOf(mock.mainBodies[before])).toContain("Step one: reading the code.");
      expect(doc.runs.at(-1)?.metadata).toMatchObject({ bridge: { seat: "seat-a", session: { resumed: true } } });
    } finally {
      await b.daemon.stop();
    }
  }, 180_000);

  it("cut by a usage limit (seat.onLimit: handoff): another seat of the lane completes it at once, no operator", async () => {
    emu = await Emu.create();
    const { agent } = await limitedClaude(600);
    const id = await emu.createTask("limited job", { assignee: SEAT, body: "Do it. MODE:complete" });
    const live = { discovery: { watch: true, sweepSeconds: 3600, debounceMs: 20 }, claim: { ttlSeconds: 900, safetySeconds: 40 } };
    const a = await runBridge(emu, { once: false, stateName: "state-a", base: { ...SHORT, ...live, agent, seat: { name: "seat-a", limitMarginSeconds: 0 } } });
    let bSeat: Bridge | undefined;
    try {
      const cut = await new Promise<{ handedOff?: string }>((r) => a.daemon.once("run:closed", r));
      expect(cut.handedOff).toBe("handoff");
      expect(a.daemon.status().seat.paused).toBe(true);
      bSeat = await runBridge(emu, { once: false, stateName: "state-b", base: { ...live, seat: { name: "seat-b" } } });
      const seatB = bSeat;
      await new Promise<void>((r) => seatB.daemon.on("run:closed", (rep) => rep.taskId === id && r()));
      const doc = await emu.show(id);
      expect(doc.task.status).toBe("done");
      expect(doc.runs.map((r) => r.outcome)).toEqual(["reclaimed", "completed"]);
      expect(doc.runs.at(-1)?.metadata).toMatchObject({ bridge: { seat: "seat-b", agent: "command" } });
      expect(doc.comments.some((c) => /seat seat-a\): this seat hit its usage limit/.test(c.body))).toBe(true);
      expect(doc.events.map((e) => e.kind)).not.toContain("blocked");
    } finally {
      await a.daemon.stop();
      await bSeat?.daemon.stop();
    }
  }, 180_000);
});
