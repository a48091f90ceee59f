// The bridge's own git is no way out of the agent's sandbox (issue rows 2 and 9): a `.git` the agent
// rewrote to point at a repository of its own (fsmonitor, a clean filter, hooks), or a repository
// config the agent edited, never runs anything — in checkout mode (commit + push) nor in the gate's
// change listing of a Hermes `worktree:` or `dir:` workspace — and a task's branch outside the
// allowed prefix is the base of the work, never the push target.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu, type ShowDoc } from "../helpers/emulator.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

const HOSTILE = resolve("test/fixtures/agents/hostile-agent.mjs");
const reasonOf = (d: ShowDoc) => String(d.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");
const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
const git = (dir: string, ...args: string[]) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8", env: GIT_ENV }).trim();

function repo(dir: string): string {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, "README.md"), "project\n");
  git(dir, "add", ".");
  git(dir, "commit", "-qm", "init");
  return dir;
}

function origin(): string {
  const bare = join(emu.dir, "origin.git");
  execFileSync("git", ["clone", "-q", "--bare", repo(join(emu.dir, "seed")), bare]);
  return bare;
}

/** The agent, with a planted secret in the bridge's environment that a hook would write out. */
function hostile(marker: string, extra: Record<string, unknown> = {}) {
  return {
    env: { FIXTURE_MARKER: marker, DEPLOY_TOKEN: "planted-token-value-5521" },
    base: {
      // unconfined (agent.isolation: none): the bridge's git runner must hold without the jail too
      agent: { kind: "command", command: [process.execPath, HOSTILE], passEnv: ["FIXTURE_MARKER"], killGraceSeconds: 1, isolation: "none" },
      gate: { allowDirty: true },
      ...extra,
    },
  };
}

describe("row 2: a redirected .git or a rewritten repository config runs nothing", () => {
  it("checkout mode: `.git` pointed at the agent's own repository is refused, not followed — nothing is committed or pushed", async () => {
    emu = await Emu.create();
    const marker = join(emu.dir, "PWNED");
    const url = origin();
    const before = git(url, "rev-parse", "main");
    const id = await emu.createTask("redirect", { assignee: SEAT, body: "MODE:git-redirect" });
    await (await runBridge(emu, hostile(marker, { workspace: { mode: "checkout", repos: { [emu.slug]: url } } }))).daemon.done;
    const d = await emu.show(id);
    expect(existsSync(marker)).toBe(false);
    expect(d.task.status).toBe("blocked");
    expect(reasonOf(d)).toMatch(/\.git in .* was replaced or redirected during the run/);
    expect(git(url, "rev-parse", "main")).toBe(before);
    expect(git(url, "branch", "--list", `hermes/${id}`)).toBe("");
  });

  it("a Hermes `worktree:` workspace whose .git the agent redirects: the gate's change listing runs nothing, the close blocks naming it, the .git comes back", async () => {
    emu = await Emu.create();
    const marker = join(emu.dir, "PWNED");
    const main = repo(join(emu.dir, "projects", "main"));
    const wt = join(emu.dir, "projects", "wt-task");
    git(main, "worktree", "add", "-q", "-b", "wt/task", wt);
    const dotGit = readFileSync(join(wt, ".git"), "utf8");
    const id = await emu.createTask("worktree", { assignee: SEAT, body: "MODE:git-redirect", workspace: `dir:${wt}` });
    await (await runBridge(emu, hostile(marker, { workspace: { allowedRoots: [join(emu.dir, "projects")] } }))).daemon.done;
    const d = await emu.show(id);
    expect(existsSync(marker)).toBe(false);
    expect(d.task.status).toBe("blocked");
    expect(reasonOf(d)).toMatch(/\.git in .* was replaced or redirected during the run/);
    // the worktree's own .git is back: the operator's git status there runs nothing of the agent's
    expect(readFileSync(join(wt, ".git"), "utf8")).toBe(dotGit);
    execFileSync("git", ["status", "--short"], { cwd: wt, env: GIT_ENV });
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(join(wt, "work.txt"), "utf8")).toBe("the agent's work\n");
  });

  it("a `dir:` workspace that is a whole repository, its config rewritten by the agent: the gate runs none of it, the close is a block naming the keys, the config is put back", async () => {
    emu = await Emu.create();
    const marker = join(emu.dir, "PWNED");
    const ws = repo(join(emu.dir, "projects", "whole"));
    const before = readFileSync(join(ws, ".git", "config"), "utf8");
    const id = await emu.createTask("config", { assignee: SEAT, body: "MODE:git-config", workspace: `dir:${ws}` });
    await (await runBridge(emu, hostile(marker, { workspace: { allowedRoots: [join(emu.dir, "projects")] } }))).daemon.done;
    const d = await emu.show(id);
    expect(existsSync(marker)).toBe(false);
    expect(d.task.status).toBe("blocked");
    const reason = String(d.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");
    expect(reason).toMatch(/^cause: human decision needed$/m);
    for (const key of ["core.fsmonitor", "filter.evil.clean", "diff.external", "core.hookspath"]) expect(reason).toContain(key);
    // the repository is as it was: the operator's next git command runs nothing of the agent's
    expect(readFileSync(join(ws, ".git", "config"), "utf8")).toBe(before);
    execFileSync("git", ["status", "--short"], { cwd: ws });
    expect(existsSync(marker)).toBe(false);
    // the agent's own work is still there for a person to review
    expect(readFileSync(join(ws, "work.txt"), "utf8")).toBe("the agent's work\n");
  });
});

describe("row 9: push targets the operator chose", () => {
  it("a task created with --branch main: main is the base, the work is pushed to hermes/<task>, and the close says so", async () => {
    emu = await Emu.create();
    const url = origin();
    const before = git(url, "rev-parse", "main");
    const id = await emu.createTask("on main", { assignee: SEAT, body: "MODE:complete", branch: "main" });
    await (
      await runBridge(emu, {
        base: { workspace: { mode: "checkout", repos: { [emu.slug]: url } } },
      })
    ).daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect(git(url, "rev-parse", "main")).toBe(before);
    expect(git(url, "rev-parse", `hermes/${id}^`)).toBe(before);
    const m = d.runs.at(-1)?.metadata as { artifacts: { type: string; url?: string }[]; bridge: { workspace: { note: string } } };
    expect(m.artifacts.find((a) => a.type === "git")?.url).toMatch(new RegExp(`#hermes/${id}$`));
    expect(m.bridge.workspace.note).toMatch(new RegExp(`the task's branch main is outside workspace.branchPrefix .* the work is on hermes/${id}`));
  });
});
