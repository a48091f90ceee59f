// Continuity end to end with the command agent and fixture CLIs: a session declared by the agent is
// journaled, named in the cut's block and resumed after an unblock (with the continuation prompt and
// `resume` in the context); the resume budget ends in a human decision; a task's max runtime sizes its
// claim; deliverables survive the scratch workspace; usage lands on the card.
import { chmodSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AGENT, runBridge, SEAT } from "../helpers/bridge.js";
import { Emu, type ShowDoc } from "../helpers/emulator.js";
import { untilHost } from "../helpers/steering.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

const FAKE = resolve("test/fixtures/agents/fake-cli.mjs");
const reasonOf = (doc: ShowDoc) => String(doc.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");
/** Run time 15 s, then the polite stop (SIGTERM for a command agent): room for a loaded machine to start the agent (5 s was not). */
const SHORT = { claim: { ttlSeconds: 40, safetySeconds: 25 }, heartbeat: { intervalSeconds: 1 } };

describe("continuity with a command agent", () => {
  it("a cut run's declared session is resumed after the unblock, with why it was cut and what is new", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("polite", { assignee: SEAT, body: "MODE:polite" });
    await (await runBridge(emu, { base: SHORT })).daemon.done;
    const cut = await emu.show(id);
    expect(cut.task.status).toBe("blocked");
    const reason = reasonOf(cut);
    expect(reason).toMatch(/did not finish before its deadline .*stopped \(politely first/);
    expect(reason).toMatch(/Last progress note: "(working|saving on polite stop)"/);
    expect(reason).toContain(`session: sess-${id} — unblock to continue; the next run of this seat resumes session sess-${id}`);
    await emu.kanban(["unblock", "--reason", "the API key is in the vault now", id]);
    const b = await runBridge(emu, { base: SHORT });
    await b.daemon.done;
    const done = await emu.show(id);
    expect(done.task.status).toBe("done");
    expect(done.runs.at(-1)?.summary).toBe(`resumed sess-${id}: deadline`);
    expect(done.runs.at(-1)?.metadata).toMatchObject({ bridge: { session: { id: `sess-${id}`, resumed: true } } });
    expect(b.reports[0]).toMatchObject({ resumed: true, decision: "complete" });
  });

  it("the continuation prompt says why the run was cut and carries the unblock reason", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("prompt", { assignee: SEAT, body: "MODE:polite" });
    await (await runBridge(emu, { base: SHORT })).daemon.done;
    await emu.kanban(["comment", id, "Use the staging database."]);
    await emu.kanban(["unblock", "--reason", "go on", id]);
    // a shell line names its files in a string: the jail shows them as the operator's extras
    const seen = join(emu.dir, "seen");
    mkdirSync(seen);
    chmodSync(seen, 0o777); // the agent's user writes it (a bridge running as root runs agents as another uid)
    const promptFile = join(seen, "prompt.txt");
    const agent = {
      kind: "command",
      command: ["sh", "-c", `cat > ${promptFile}; exec ${process.execPath} ${AGENT}`],
      killGraceSeconds: 1,
      isolation: { readOnly: [dirname(AGENT)], readWrite: [seen] },
    };
    await (await runBridge(emu, { base: { ...SHORT, agent } })).daemon.done;
    const prompt = readFileSync(promptFile, "utf8");
    expect(prompt).toMatch(/You are continuing your own earlier run/);
    expect(prompt).toMatch(/That run was cut: it reached its deadline/);
    expect(prompt).toContain("Use the staging database.");
    expect(prompt).toContain("Unblocked with the reason: go on");
  });

  it("the files of every sitting are the task's changed files: a cut run's and its continuation's", async () => {
    emu = await Emu.create();
    const e = emu;
    const id = await e.createTask("two sittings", { assignee: SEAT, body: "MODE:polite-files" });
    // sitting 1 writes first.txt and is stopped by a planned stop of its seat: the claim kept, the session saved
    const first = await runBridge(e, { once: false, base: { claim: { ttlSeconds: 600 } } });
    const ws = await untilHost("the task's workspace", async () => (await e.show(id)).task.workspace_path);
    await untilHost("first.txt", () => existsSync(join(ws, "first.txt")));
    await first.daemon.stop();
    // sitting 2 continues it (the session resumed: second.txt) and completes
    await (await runBridge(e, { base: { claim: { ttlSeconds: 600 } } })).daemon.done;
    const d = await e.show(id);
    expect(d.task.status).toBe("done");
    expect(d.runs).toHaveLength(1);
    expect(d.runs[0]?.summary).toMatch(/^resumed sess-/);
    expect((d.runs[0]?.metadata as { changed_files?: string[] } | null)?.changed_files).toEqual(["first.txt", "second.txt"]);
  });

  it("the resume budget ends in a human decision, and the session is dropped for a fresh start", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("endless", { assignee: SEAT, body: "MODE:polite" });
    const agent = (cmd: string[]) => ({ kind: "command", command: cmd, killGraceSeconds: 1, resumeBudget: 1, isolation: { readOnly: [dirname(AGENT)] } });
    await (await runBridge(emu, { base: { ...SHORT, agent: agent([process.execPath, AGENT]) } })).daemon.done; // run 1: cut
    await emu.kanban(["unblock", id]);
    // run 2 resumes the session (the budget of 1 is used), then loses its lease (an operator reclaims it)
    const keepWorking = agent(["sh", "-c", `HERMES_BRIDGE_RESUME_SESSION= exec ${process.execPath} ${AGENT}`]);
    const second = await runBridge(emu, { base: { claim: { ttlSeconds: 600 }, heartbeat: { intervalSeconds: 1 }, agent: keepWorking } });
    // the operator reclaims once the run is under way (its third heartbeat, 3 s in: the first goes one interval after the claim)
    let beats = 0;
    second.daemon.on("heartbeat", () => {
      beats += 1;
      if (beats === 3) void emu?.kanban(["reclaim", id]);
    });
    // (the task is ready again after the operator's reclaim: this seat stops after that run, run 3 is below)
    second.daemon.once("run:closed", () => void second.daemon.stop());
    await second.daemon.done;
    expect(second.reports[0]).toMatchObject({ decision: "lost", resumed: true });
    // run 3: over the budget — blocked for a human before the agent starts
    await (await runBridge(emu, { base: { ...SHORT, agent: agent([process.execPath, AGENT]) } })).daemon.done;
    const d = await emu.show(id);
    const r = reasonOf(d);
    expect(r).toMatch(/^cause: human decision needed$/m);
    expect(r).toMatch(/was already resumed 1 times \(agent.resumeBudget\)/);
    expect(r).toMatch(/the session is dropped/);
  });
});

describe("per-task claims, deliverables, usage", () => {
  it("a task's max runtime sizes its claim: TTL = max runtime + safety (claimed, given back, claimed again)", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("sized", { assignee: SEAT, body: "MODE:complete", maxRuntime: "2h" });
    const b = await runBridge(emu, { base: { claim: { ttlSeconds: 900 } } });
    let ttl = 0;
    b.daemon.on("claimed", (e) => {
      ttl = e.ttlSeconds;
    });
    await b.daemon.done;
    expect(ttl).toBe(7260);
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    const claims = d.events.filter((e) => e.kind === "claimed");
    expect(claims.map((e) => Number(e.payload?.expires) - Number(e.created_at))).toEqual([900, 7260]);
    expect(d.events.find((e) => e.kind === "reclaimed")?.payload?.reason).toBe("hermes-kanban-bridge: claiming again with the task's max runtime (--ttl 7260)");
    // The work ran on the second claim only.
    expect(d.runs.map((r) => r.outcome)).toEqual(["reclaimed", "completed"]);
  });

  it("a task without a max runtime is claimed once, with the default TTL", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("plain", { assignee: SEAT, body: "MODE:complete" });
    await (await runBridge(emu, { base: { claim: { ttlSeconds: 900 } } })).daemon.done;
    const d = await emu.show(id);
    expect(d.events.filter((e) => e.kind === "claimed").map((e) => Number(e.payload?.expires) - Number(e.created_at))).toEqual([900]);
    expect(d.events.filter((e) => e.kind === "reclaimed")).toEqual([]);
  });

  it("a declared deliverable is attached before the complete deletes the scratch workspace", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("deliver", { assignee: SEAT, body: "MODE:deliver" });
    await (await runBridge(emu)).daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    const att = JSON.parse((await emu.kanban(["attachments", id, "--json"])).stdout) as { filename: string; stored_path: string }[];
    expect(att.map((a) => a.filename)).toEqual(["report.md"]);
    expect(readFileSync(att[0]?.stored_path ?? "", "utf8")).toBe("# report\n");
    const meta = d.runs.at(-1)?.metadata as { artifacts: { path: string; attachment?: { filename: string } }[] };
    expect(meta.artifacts).toEqual([{ type: "file", label: "the report", path: "report.md", attachment: { id: 1, filename: "report.md", size: 9 } }]);
    // the summary's absolute workspace path was made relative, so Hermes kept the structured artifacts
    expect(d.runs.at(-1)?.summary).toBe("wrote report.md");
  });

  it("a deliverable that cannot be preserved turns the complete into a block naming it", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("ghost", { assignee: SEAT, body: "MODE:deliver-missing" });
    await (await runBridge(emu)).daemon.done;
    const r = reasonOf(await emu.show(id));
    expect(r).toMatch(/its deliverable ghost\.md could not be preserved on the board: it does not exist/);
  });

  it("tokens, cost, turns, model and session of a CLI agent land in metadata.bridge and in the metrics", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("usage", { assignee: SEAT, body: "x" });
    const b = await runBridge(emu, {
      env: { FAKE_CLI: "claude", FAKE_SCRIPT: "complete" },
      // http.port set: the metrics are kept (they are not built when nothing can read them).
      base: { agent: { kind: "claude-code", command: [process.execPath, FAKE], passEnv: ["FAKE_CLI", "FAKE_SCRIPT"], killGraceSeconds: 1 }, http: { port: 0 } },
    });
    await b.daemon.done;
    const meta = (await emu.show(id)).runs.at(-1)?.metadata as { bridge: Record<string, unknown> };
    expect(meta.bridge).toMatchObject({
      tokens: { input: 10, output: 5 },
      cost_usd: 0.01,
      // the session id the bridge chose for the run (--session-id), which the CLI took
      session: { id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/), resumed: false },
    });
    const metrics = await b.built.metrics?.registry.metrics();
    expect(metrics).toMatch(/hkb_agent_tokens_total\{seat="test-seat",agent="claude-code",kind="input"\} 10/);
    expect(metrics).toMatch(/hkb_agent_cost_usd_total\{seat="test-seat",agent="claude-code"\} 0.01/);
  });
});
