// The emulator as a Hermes line with named claims (HERMES_EMULATOR_COMPAT=named-claims), verb by verb,
// against what the named-claim tests assert (named in src/emulator/verbs/named-claims.ts): exit codes, messages, and that a
// refused call leaves no trace. The bridge's side of these is in the Board contract (capability branches)
// and test/integration/named-claims.test.ts.
import { hostname } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { Emu, type ShowDoc } from "../helpers/emulator.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

const OWNER = "claude:905f3fd6";
const OTHER = "codex:01a10973";
const up = () => Emu.create("bridge", { env: { HERMES_EMULATOR_COMPAT: "named-claims" } });
const trace = (d: ShowDoc) => ({ status: d.task.status, comments: d.comments, events: d.events.map((e) => e.kind), runs: d.runs.length });

describe("emulator as a Hermes with named claims", () => {
  it("help advertises exactly the new flags; 0.20.0 keeps its recorded help", async () => {
    emu = await up();
    const help = async (verb: string) => (await emu.kanban([verb, "--help"])).stdout;
    expect(await help("claim")).toMatch(/--claimer CLAIMER/);
    expect(await help("heartbeat")).toMatch(/--claimer CLAIMER[\s\S]*--ttl TTL/);
    expect(await help("complete")).toMatch(/--claimer[\s\S]*--force[\s\S]*--expected-status/);
    expect(await help("block")).toMatch(/--expected-status[\s\S]*--author AUTHOR/);
    expect(await help("comment")).toMatch(/--expected-status/);
    expect(await help("unblock")).toMatch(/--expected-block-kind \{capability,needs_input,transient\}/);
    expect(await help("dispatch")).toMatch(/--failure-limit[\s\S]*reclaimed/);
    const plain = await Emu.create();
    try {
      expect((await plain.kanban(["claim", "--help"])).stdout).not.toMatch(/--claimer/);
      expect((await plain.kanban(["heartbeat", "--help"])).stdout).not.toMatch(/--ttl/);
    } finally {
      plain.cleanup();
    }
  });

  it("claim: malformed claimers and this host's name are refused (exit 2); the holder's replay is the same claim; a foreigner is refused", async () => {
    emu = await up();
    const id = await emu.createTask("card", { assignee: "s" });
    for (const bad of ["claude", "Claude:abc", "claude:", ":abc", "claude:a b", `${hostname()}:4242`]) {
      const r = await emu.kanban(["claim", id, "--claimer", bad]);
      expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(/claimer/)]);
    }
    expect((await emu.kanban(["claim", id, "--claimer", OWNER])).code).toBe(0);
    expect((await emu.kanban(["claim", id, "--claimer", OWNER])).code).toBe(0);
    expect((await emu.kanban(["claim", id, "--claimer", OTHER])).code).toBe(1);
    const d = await emu.show(id);
    expect(d.runs).toHaveLength(1);
    expect(d.events.filter((e) => e.kind === "claimed")).toHaveLength(1);
  });

  it("heartbeat: --ttl without a claimer is refused (exit 2); a non-holder changes nothing; the holder renews, never shortening", async () => {
    emu = await up();
    const id = await emu.createTask("card", { assignee: "s" });
    await emu.kanban(["claim", id, "--claimer", OWNER, "--ttl", "14400"]);
    const expires = () => emu.show(id).then((d) => Number((d.task as unknown as { claim_expires: number }).claim_expires));
    const before = await expires();
    expect((await emu.kanban(["heartbeat", id, "--ttl", "7200"])).code).toBe(2);
    const foreign = await emu.kanban(["heartbeat", id, "--claimer", OTHER]);
    expect([foreign.code, foreign.stderr]).toEqual([1, expect.stringMatching(/not held/)]);
    expect((await emu.kanban(["heartbeat", id, "--claimer", OWNER])).code).toBe(0);
    expect(await expires()).toBe(before);
    expect((await emu.kanban(["heartbeat", id, "--claimer", OWNER, "--ttl", "20000"])).code).toBe(0);
    expect(await expires()).toBeGreaterThan(before);
    expect((await emu.show(id)).events.filter((e) => e.kind === "heartbeat")).toHaveLength(2);
  });

  it("the live-claim fence: complete and block by anyone but the holder are refused with no trace; --force overrides; an expired claim no longer fences", async () => {
    emu = await up();
    const id = await emu.createTask("card", { assignee: "s" });
    await emu.kanban(["claim", id, "--claimer", OWNER]);
    const before = trace(await emu.show(id));
    for (const args of [
      ["complete", id, "--result", "not mine"],
      ["complete", id, "--result", "not mine", "--claimer", OTHER],
      ["block", id, "mine now", "--claimer", OTHER],
    ]) {
      const r = await emu.kanban(args);
      expect([r.code, r.stderr]).toEqual([1, expect.stringMatching(new RegExp(`claimed by ${OWNER}`))]);
    }
    expect(trace(await emu.show(id))).toEqual(before);
    emu.advance(1000);
    expect((await emu.kanban(["complete", id, "--result", "picked up a lapsed card"])).code).toBe(0);
    const forced = await emu.createTask("card 2", { assignee: "s" });
    await emu.kanban(["claim", forced, "--claimer", OWNER]);
    expect((await emu.kanban(["block", forced, "operator override", "--force"])).code).toBe(0);
  });

  it("compare-and-set guards: --expected-status on complete/comment/block and --expected-block-kind on unblock refuse with no trace", async () => {
    emu = await up();
    const id = await emu.createTask("card", { assignee: "s" });
    await emu.kanban(["claim", id]);
    await emu.kanban(["block", id, "--kind", "needs_input"]);
    const before = trace(await emu.show(id));
    for (const [args, code] of [
      [["complete", id, "--expected-status", "running", "--result", "stale"], 1],
      [["comment", id, "stale note", "--expected-status", "running"], 1],
      [["block", id, "again", "--expected-status", "running"], 1],
      [["unblock", id, "--expected-block-kind", "capability", "--reason", "stale clear"], 1],
      [["unblock", id, "--expected-block-kind", "dependency"], 2],
      [["unblock", id, "--reason", "retry", "--author", ""], 2],
    ] as const) {
      const r = await emu.kanban([...args]);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(code);
    }
    expect((await emu.kanban(["unblock", id, "--expected-block-kind", "capability"])).stderr).toMatch(/needs_input/);
    expect(trace(await emu.show(id))).toEqual(before);
    expect((await emu.kanban(["unblock", id, "--expected-block-kind", "needs_input", "--reason", "input arrived", "--author", "dream-cron"])).code).toBe(0);
    const d = await emu.show(id);
    expect(d.task.status).toBe("ready");
    expect(d.comments.at(-1)).toMatchObject({ author: "dream-cron", body: "UNBLOCK: input arrived" });
  });

  it("every automatic reclaim counts as a failure: the second lapse gives up (blocked, gave_up)", async () => {
    emu = await up();
    const id = await emu.createTask("card", { assignee: "s" });
    for (const lapse of [1, 2]) {
      await emu.kanban(["claim", id, "--claimer", OWNER, "--ttl", "60"]);
      emu.advance(lapse * 1000);
      await emu.kanban(["dispatch", "--json"]);
    }
    const d = await emu.show(id);
    expect(d.task.status).toBe("blocked");
    expect(d.events.filter((e) => e.kind === "reclaimed")).toHaveLength(2);
    expect(d.events.findLast((e) => e.kind === "gave_up")?.payload).toMatchObject({ failures: 2, limit: 2 });
  });

  it("show --json names the claim and who closed each run", async () => {
    emu = await up();
    const id = await emu.createTask("card", { assignee: "s" });
    await emu.kanban(["claim", id, "--claimer", OWNER]);
    const running = (await emu.show(id)).task as unknown as Record<string, unknown>;
    expect(running).toMatchObject({ claim_lock: OWNER, current_run_id: 1, last_heartbeat_at: null });
    expect(running.claim_expires).toBeTypeOf("number");
    await emu.kanban(["complete", id, "--claimer", OWNER, "--result", "done"]);
    expect((await emu.show(id)).runs[0]).toMatchObject({ closed_by: OWNER });
  });
});
