// The bridge on Hermes 0.21.4/0.21.5 — the emulator's 0.21.5 mode (HERMES_EMULATOR_COMPAT=0.21.5,
// src/emulator/verbs/line0215.ts, after NousResearch/hermes-agent at commit 00030df13ffeaadcadf9d79935bac522e5552c88):
// every refusal ends in a templated block that names its fix — a review hand-off the goal judge refuses
// (in the judge's own words), a complete refused for a parent that is not done (by id and status), a
// task whose comment links a PR an earlier run opened (the active_pr guard: `authorize-existing-pr`,
// whose grant then lets exactly one run amend it). The board's own guard and `kanban.dispatch_profiles`
// hold profile lanes only, and `diagnostics --json` ends with the home's row.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseDiagnostics } from "../../src/board/parse.js";
import { hasAllFields } from "../../src/result/template.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu, type ShowDoc } from "../helpers/emulator.js";

const COMPAT = { HERMES_EMULATOR_COMPAT: "0.21.5" };
const PR = "https://github.com/acme/widgets/pull/7";
const OPEN_PR = {
  state: "open",
  merged: false,
  head: { ref: "wt/fix", repo: { full_name: "acme/widgets" } },
  base: { ref: "main", repo: { full_name: "acme/widgets" } },
};

let emu: Emu | undefined;
afterEach(() => {
  emu?.cleanup();
  emu = undefined;
});
const board = async () => {
  emu = await Emu.create("bridge", { env: COMPAT });
  return emu;
};
const lastBlock = (d: ShowDoc) => String(d.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");

describe("Hermes 0.21.5 (emulator): each refusal ends in a templated block that names its fix", () => {
  it("a review hand-off of a --goal task the judge refuses: blocked in the judge's own words, nothing handed over", async () => {
    const e = await board();
    writeFileSync(join(e.home, ".emulator-goal-judge"), JSON.stringify({ verdict: "continue", reason: "the empty-input case is not covered" }));
    const id = await e.createTask("goal on 0.21.5", { assignee: SEAT, body: "MODE:review", extra: ["--goal"] });
    const b = await runBridge(e);
    await b.daemon.done;
    const d = await e.show(id);
    expect(d.task.status).toBe("blocked");
    const reason = lastBlock(d);
    expect(hasAllFields(reason)).toBe(true);
    expect(reason).toMatch(/^cause: human decision needed$/m);
    expect(reason).toContain('goal judge (the task was created with --goal) refused it: "the empty-input case is not covered"');
    expect(reason).toContain(`hermes kanban --board bridge unblock --reason "…" ${id}`);
    expect(d.runs.map((r) => r.outcome)).toEqual(["blocked"]);
    expect(d.events.filter((x) => x.kind === "review_requested")).toEqual([]);
    expect(b.reports[0]).toMatchObject({ decision: "block" });
  });

  it("a complete refused for a parent linked after the claim: blocked naming it by id and status; no heartbeat before its interval", async () => {
    const e = await board();
    const parent = await e.createTask("the parent", { assignee: "someone-else" });
    const id = await e.createTask("the child", { assignee: SEAT, body: "MODE:wait-file" });
    // A 10-minute heartbeat interval (on an hour's claim): the claim's read is the run's only look before its close.
    const b = await runBridge(e, { once: false, base: { claim: { ttlSeconds: 3600 }, heartbeat: { intervalSeconds: 600 } } });
    try {
      const closed = b.monitor.closed(id);
      await b.monitor.phase(id, "working");
      const linked = await e.kanban(["link", parent, id]);
      expect(linked.code, linked.stderr).toBe(0);
      writeFileSync(join((await e.show(id)).task.workspace_path ?? "", "go"), "");
      await closed;
    } finally {
      await b.daemon.stop();
    }
    const d = await e.show(id);
    expect(d.task.status).toBe("blocked");
    const reason = lastBlock(d);
    expect(hasAllFields(reason)).toBe(true);
    expect(reason).toContain(`the task depends on parents that are not done — ${parent} (ready)`);
    expect(reason).toContain(`hermes kanban --board bridge unlink <parent> ${id}`);
    expect(d.runs.filter((r) => r.outcome === "completed")).toEqual([]);
    expect(d.events.some((x) => x.kind === "heartbeat")).toBe(false);
  });

  it("a task whose comment links a PR an earlier run opened: not worked, blocked naming authorize-existing-pr; the operator's grant lets one run amend it", async () => {
    const e = await board();
    const id = await e.createTask("remediate the review", { assignee: SEAT, body: "MODE:complete" });
    expect((await e.kanban(["comment", id, `Opened ${PR} for review.`, "--author", "earlier-run"])).code).toBe(0);
    await (await runBridge(e)).daemon.done;
    let d = await e.show(id);
    expect(d.task.status).toBe("blocked");
    const reason = lastBlock(d);
    expect(hasAllFields(reason)).toBe(true);
    expect(reason).toMatch(
      /^what happened: The agent was not started: a comment of the last 24 hours links the pull request https:\/\/github\.com\/acme\/widgets\/pull\/7/m,
    );
    const grant = `hermes kanban --board bridge authorize-existing-pr ${id} --pr ${PR} --repo acme/widgets --branch <the PR's head branch> --reason "<why this card may amend it>"`;
    expect(reason).toContain(grant);

    // The grant is the operator's: refused inside a worker, refused while GitHub cannot confirm the PR.
    const args = ["authorize-existing-pr", id, "--pr", PR, "--repo", "acme/widgets", "--branch", "wt/fix", "--reason", "amend the same PR"];
    expect(await e.kanban(args, { HERMES_KANBAN_TASK: id })).toMatchObject({
      code: 1,
      stderr: "refused: authorize-existing-pr is operator-only (running inside a kanban worker)\n",
    });
    expect(await e.kanban(args)).toMatchObject({ code: 1, stderr: "refused: could not verify PR state on GitHub (CalledProcessError)\n" });
    writeFileSync(join(e.home, ".emulator-github-prs.json"), JSON.stringify({ [PR]: OPEN_PR }));
    expect(await e.kanban(args)).toMatchObject({ code: 0, stdout: `Authorized ${id} to amend ${PR} (acme/widgets@wt/fix); expires on its next claimed run\n` });
    expect((await e.kanban(["unblock", id])).code).toBe(0);
    await (await runBridge(e)).daemon.done;
    d = await e.show(id);
    expect(d.task.status).toBe("done");
    expect(d.runs.map((r) => r.outcome)).toEqual(["blocked", "completed"]);
  });
});

describe("Hermes 0.21.5 (emulator): the board's own guard, dispatch_profiles, diagnostics", () => {
  it("the capability is read from `kanban --help` (authorize-existing-pr), never from the version; 0.21.3 has none", async () => {
    const e = await board();
    expect(await e.board().capabilities()).toMatchObject({
      version: "0.21.5",
      authorizeExistingPr: true,
      review: true,
      reviewMetadata: true,
      namedClaims: false,
    });
    const older = e.board({ env: { parent: process.env, passEnv: [], set: { HERMES_HOME: e.home, HERMES_EMULATOR_COMPAT: "0.21" }, author: "x" } });
    expect(await older.capabilities()).toMatchObject({ version: "0.21.3", authorizeExistingPr: false });
  });

  it("on 0.21.3 (no authorize-existing-pr to name) a task whose comment links a PR is worked as before", async () => {
    emu = await Emu.create("bridge", { env: { HERMES_EMULATOR_COMPAT: "0.21" } });
    const id = await emu.createTask("linked on 0.21.3", { assignee: SEAT, body: "MODE:complete" });
    expect((await emu.kanban(["comment", id, `Opened ${PR}`])).code).toBe(0);
    await (await runBridge(emu)).daemon.done;
    expect((await emu.show(id)).task.status).toBe("done");
  });

  it("dispatch holds a profile lane's PR task and skips a lane no allowlist names; diagnostics --json ends with the home's row", async () => {
    const e = await board();
    mkdirSync(join(e.home, "profiles", "researcher"), { recursive: true });
    writeFileSync(join(e.home, "config.yaml"), "kanban:\n  dispatch_profiles: [researcher, writer]\n");
    const profile = await e.createTask("a profile's task", { assignee: "researcher" });
    const seat = await e.createTask("a seat's task", { assignee: SEAT });
    const root = await e.createTask("every home has default", { assignee: "default" });
    for (const t of [profile, seat]) expect((await e.kanban(["comment", t, `PR: ${PR}`])).code).toBe(0);
    const out = JSON.parse((await e.kanban(["dispatch", "--json"])).stdout) as Record<string, unknown>;
    expect(out.respawn_guarded).toEqual([[profile, "active_pr"]]);
    expect(out.skipped_nonspawnable).toEqual([seat, root]);
    expect(out.spawned).toEqual([]);
    expect((await e.show(profile)).events.map((x) => x.kind)).toContain("respawn_guarded");
    expect(parseDiagnostics((await e.kanban(["diagnostics", "--json"])).stdout)).toEqual({ tasks: [], dispatchProfiles: "researcher, writer" });
    writeFileSync(join(e.home, "config.yaml"), "kanban:\n  dispatch_profiles:\n");
    expect(parseDiagnostics((await e.kanban(["diagnostics", "--json"])).stdout).dispatchProfiles).toMatch(/^none \(fail-closed: /);
  });
});
