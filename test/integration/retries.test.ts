// Retries before a block with the command agent, end to end on the emulator: an agent killed by the host
// mid-work is started again after the backoff — in the same run, resuming the session it declared — and
// completes; one killed every time uses agent.retries up and the task is blocked naming each attempt. Each
// retry is a heartbeat note on the card; the close records them.
import { afterEach, describe, expect, it } from "vitest";
import { AGENT, runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";

let emu: Emu | undefined;
afterEach(() => emu?.cleanup());

describe("retries before a block", () => {
  it("a crash is continued in the same run; crashes past agent.retries end in the templated block naming them", async () => {
    emu = await Emu.create();
    const once = await emu.createTask("killed once", { assignee: SEAT, body: "MODE:crash-once", priority: 2 });
    const always = await emu.createTask("killed every time", { assignee: SEAT, body: "MODE:crash-always", priority: 1 });
    const b = await runBridge(emu, {
      base: { agent: { kind: "command", command: [process.execPath, AGENT], killGraceSeconds: 1, retryBackoffSeconds: 0.05 } },
    });
    await b.daemon.done;

    const a = await emu.show(once);
    expect(a.task.status).toBe("done");
    expect(a.runs).toHaveLength(1);
    expect(a.runs[0]?.summary).toBe(`resumed sess-${once} after the crash`);
    expect((a.runs[0]?.metadata as { bridge?: { retries: unknown[]; session: unknown } } | undefined)?.bridge).toMatchObject({
      // (in the jail its relay reports the kill as exit 137)
      retries: [{ attempt: 1, cause: "crash", detail: expect.stringMatching(/^the agent (was killed by SIGKILL|exited with code 137 \(signal 9\))$/) }],
      session: { id: `sess-${once}`, resumed: true },
    });
    const notes = (d: typeof a) =>
      d.events
        .filter((e) => e.kind === "heartbeat")
        .map((e) => String(e.payload?.note ?? ""))
        .filter((n) => n.includes("retry"));
    expect(notes(a)).toEqual([
      expect.stringMatching(
        /^hermes-kanban-bridge: retry 1 of 2 \(crash\): the agent (was killed by SIGKILL|exited with code 137 \(signal 9\)); attempt 2 of 3 in 0 s, resuming session sess-/,
      ),
    ]);

    const z = await emu.show(always);
    expect(z.task.status).toBe("blocked");
    expect(z.runs).toHaveLength(1);
    const reason = z.runs[0]?.summary ?? "";
    expect(reason).toMatch(/^cause: environment$/m);
    expect(reason).toMatch(
      /The run was started again 2 times before this block \(agent\.retries\): attempt 1 ended at .* \(crash: the agent (was killed by SIGKILL|exited with code 137 \(signal 9\))\); attempt 2 ended at/,
    );
    expect(reason.split("\n").at(-1)).toBe("usage: unmeasured (the agent reported none) · seat test-seat · agent command · retried 2 (crash, crash)");
    expect(notes(z)).toHaveLength(2);
  });
});
