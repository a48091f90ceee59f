// A task's own pins on a command-agent seat: the model and provider its creator chose reach the agent
// (HERMES_BRIDGE_MODEL / _PROVIDER) and the card; its skills are found (agent.skillDirs first, then the
// Hermes home's skills), copied into the run and listed in HERMES_BRIDGE_SKILLS; an unknown skill blocks.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AGENT, runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

function skill(root: string, category: string, name: string, text: string): void {
  mkdirSync(join(root, category, name), { recursive: true });
  writeFileSync(join(root, category, name, "SKILL.md"), `---\nname: ${name}\ndescription: ${text}\n---\n\n${text}\n`);
}

describe("a task's model and skills", () => {
  it("reach the command agent and the card; skills come from agent.skillDirs, then the Hermes home", async () => {
    emu = await Emu.create();
    const dirs = join(emu.dir, "operator-skills");
    skill(dirs, "writing", "alpha", "Alpha skill: write in haiku.");
    skill(join(emu.home, "skills"), "devops", "beta", "Beta skill: from the Hermes home.");
    skill(join(emu.home, "skills"), "writing", "alpha", "the Hermes home's alpha, shadowed by agent.skillDirs");
    const id = await emu.createTask("pinned", {
      assignee: SEAT,
      body: "MODE:pins",
      extra: ["--model", "big-model-9", "--provider", "acme", "--skill", "alpha", "--skill", "beta"],
    });
    const b = await runBridge(emu, { base: { agent: { kind: "command", command: [process.execPath, AGENT], skillDirs: [dirs] } } });
    await b.daemon.done;
    const doc = await emu.show(id);
    expect(doc.task.status, JSON.stringify(doc.events.at(-1))).toBe("done");
    const run = doc.runs.at(-1);
    const seen = JSON.parse(String((run?.metadata as { note?: string } | null)?.note));
    expect(seen).toMatchObject({ model: "big-model-9", provider: "acme" });
    expect(seen.skills.map((s: { text: string }) => s.text.trim().split("\n").at(-1))).toEqual([
      "Alpha skill: write in haiku.",
      "Beta skill: from the Hermes home.",
    ]);
    // The agent read copies in its own run dir, not the host's skill folders.
    for (const s of seen.skills as { file: string }[]) expect(s.file).toMatch(/\/runs\/[^/]+\/home\/\.agents\/skills\/(alpha|beta)\/SKILL\.md$/);
    expect(run?.metadata).toMatchObject({ bridge: { model: "big-model-9", skills: ["alpha", "beta"] } });
  });

  it("a skill this seat does not have blocks the task, naming it and the kinds of places the seat looked (never a host path)", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("needs a skill", { assignee: SEAT, body: "MODE:pins", extra: ["--skill", "no-such-skill", "--skill", "../../etc"] });
    const b = await runBridge(emu);
    await b.daemon.done;
    const doc = await emu.show(id);
    expect(doc.task.status).toBe("blocked");
    const reason = doc.events.filter((e) => e.kind === "blocked").at(-1)?.payload?.reason;
    expect(String(reason)).toMatch(/^cause: environment$/m);
    expect(String(reason)).toContain("no-such-skill, ../../etc");
    expect(String(reason)).toMatch(/agent\.skillDirs, the board's Hermes home and the Hermes install's skills/);
    expect(String(reason)).not.toContain(join(emu.home, "skills"));
  });
});

describe("a task's model and skills on the local loop", () => {
  it("the request names the pinned model; the skill's text is in the system prompt", async () => {
    const { OpenAiMock, call, finish } = await import("../helpers/openai-mock.js");
    emu = await Emu.create();
    const dirs = join(emu.dir, "operator-skills");
    skill(dirs, "writing", "alpha", "Alpha skill: write in haiku.");
    const llm = await OpenAiMock.start([
      { chunks: [call(0, "c1", "kanban_complete", '{"summary":"done","result":{"ok":true,"status":"ok","items":1}}'), finish("tool_calls")] },
    ]);
    try {
      const id = await emu.createTask("pinned loop", { assignee: SEAT, body: "Do it.", extra: ["--model", "pinned-coder:32b", "--skill", "alpha"] });
      await (await runBridge(emu, { base: { agent: { kind: "local-llm", baseUrl: llm.baseUrl, model: "mock-coder", maxSteps: 3, skillDirs: [dirs] } } })).daemon
        .done;
      const doc = await emu.show(id);
      expect(doc.task.status).toBe("done");
      const first = llm.requests[0] as { model: string; messages: { role: string; content: string }[] };
      expect(first.model).toBe("pinned-coder:32b");
      expect(first.messages[0]?.content).toContain('<skill name="alpha">');
      expect(first.messages[0]?.content).toContain("Alpha skill: write in haiku.");
      expect(doc.runs.at(-1)?.metadata).toMatchObject({ bridge: { model: "pinned-coder:32b", skills: ["alpha"] } });
    } finally {
      await llm.close();
    }
  });
});
