// The workspace's git is no door, also by the roads around the repository's own config (review of issue
// 36): a `.git/commondir` pointing git at a config of the agent's, a submodule (a gitlink and a `.git` of
// its own) that the operator's `git status` recurses into, a linked worktree's `.git` file rewritten in
// place, and a repository the agent made where there was none. Each: the operator's `git status` after
// the run runs nothing of the agent's, and the close is a block naming what was found.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/jail/policy.js";
import { AGENT, runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { blockedWhy } from "../helpers/jail-doors.js";
import { passableTempDir } from "../helpers/tmp.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;
const ENV = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
const git = (dir: string, ...a: string[]) => execFileSync("git", ["-C", dir, ...a], { encoding: "utf8", env: ENV, stdio: "pipe" });

let emu: Emu | undefined;
afterEach(() => {
  emu?.cleanup();
  emu = undefined;
});

function repo(dir: string): string {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, "README.md"), "# repo\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "init");
  return dir;
}

/** The probe in a jailed command agent working in `ws` (a `dir:` workspace); then the operator's `git status` there. */
async function attack(e: Emu, ws: string, script: string, roots: string): Promise<{ status: string; why: string; pwned: boolean; seen: string }> {
  const id = await e.createTask("git", { assignee: SEAT, body: "MODE:jail-probe", workspace: `dir:${ws}` });
  const b = await runBridge(e, {
    env: { FIXTURE_PROBE: `exec > probe.log 2>&1\n${script}` },
    base: {
      agent: { kind: "command", command: [process.execPath, AGENT], passEnv: ["FIXTURE_PROBE"], isolation: BWRAP ? "bwrap" : "none", killGraceSeconds: 2 },
      workspace: { allowedRoots: [roots] },
      gate: { allowDirty: true },
    },
  });
  await b.daemon.done;
  const doc = await e.show(id);
  const seen = existsSync(join(ws, "probe.log")) ? readFileSync(join(ws, "probe.log"), "utf8") : "";
  try {
    execFileSync("git", ["status", "--short"], { cwd: ws, stdio: "pipe", env: ENV });
  } catch {
    // a failing git status is fine: what matters is whether it ran the agent's program
  }
  return { status: doc.task.status, why: blockedWhy(doc), pwned: existsSync(join(e.dir, "PWNED")), seen };
}

/** A program the agent leaves for git to run: it marks the host when it runs. */
const markScript = (e: Emu) => `printf '#!/bin/sh\\ntouch ${join(e.dir, "PWNED")}\\n' > m.sh && chmod +x m.sh`;

describe("git around the repository's config runs nothing of the agent's", () => {
  it("a .git/commondir pointing git at a config of the agent's", async () => {
    emu = await Emu.create();
    const ws = repo(join(emu.dir, "projects", "repo"));
    const r = await attack(
      emu,
      ws,
      [
        markScript(emu),
        "mkdir -p .c && cp -r .git/objects .git/refs .git/HEAD .c/ && cp .git/config .c/config",
        'git config --file .c/config core.fsmonitor "$PWD/m.sh"',
        "echo ../.c > .git/commondir && echo WROTE",
      ].join("\n"),
      join(emu.dir, "projects"),
    );
    expect(r.seen).toContain("WROTE");
    expect(r.pwned).toBe(false);
    expect(r.status).toBe("blocked");
    expect(r.why).toMatch(/commondir was added or changed/);
    expect(existsSync(join(ws, ".git", "commondir"))).toBe(false);
  });

  it("a submodule of the agent's (a gitlink and a .git with core.fsmonitor) that git status recurses into", async () => {
    emu = await Emu.create();
    const ws = repo(join(emu.dir, "projects", "repo"));
    const r = await attack(
      emu,
      ws,
      [
        markScript(emu),
        "git init -q sub && git -C sub -c user.name=a -c user.email=a@b commit -q --allow-empty -m s",
        'git -C sub config core.fsmonitor "$PWD/m.sh"',
        "git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub && git -c user.name=a -c user.email=a@b commit -qm sub && echo COMMITTED",
      ].join("\n"),
      join(emu.dir, "projects"),
    );
    expect(r.seen).toContain("COMMITTED");
    expect(r.pwned).toBe(false);
    expect(r.status).toBe("blocked");
    expect(r.why).toMatch(/submodule sub: core\.fsmonitor/);
    expect(readdirSync(join(ws, "sub")).some((n) => n.startsWith(".git.set-aside-by-bridge-"))).toBe(true);
  });

  it("a linked worktree's .git file rewritten in place (same inode) to a git dir of the agent's", async () => {
    emu = await Emu.create();
    const projects = passableTempDir("hkb-wt-");
    try {
      const main = repo(join(projects, "main"));
      const wt = join(projects, "wt-task");
      git(main, "worktree", "add", "-q", "-b", "wt/task", wt);
      const before = readFileSync(join(wt, ".git"), "utf8");
      const r = await attack(
        emu,
        wt,
        [
          markScript(emu),
          "mkdir -p .e/objects .e/refs/heads && echo 'ref: refs/heads/x' > .e/HEAD",
          `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tfsmonitor = %s/m.sh\\n' "$PWD" > .e/config`,
          "printf 'gitdir: .e\\n' > .git && echo REWROTE",
        ].join("\n"),
        projects,
      );
      expect(r.seen).toContain("REWROTE");
      expect(r.pwned).toBe(false);
      expect(r.status).toBe("blocked");
      expect(r.why).toMatch(/\.git in .* was replaced or redirected/);
      expect(readFileSync(join(wt, ".git"), "utf8")).toBe(before);
    } finally {
      execFileSync("rm", ["-rf", projects]);
    }
  });

  it("a repository the agent made where there was none, set to run code; control: a plain `git init` is no finding", async () => {
    emu = await Emu.create();
    const ws = join(emu.dir, "projects", "plain");
    mkdirSync(ws, { recursive: true });
    const r = await attack(
      emu,
      ws,
      [markScript(emu), 'git init -q . && git config core.fsmonitor "$PWD/m.sh" && echo INIT'].join("\n"),
      join(emu.dir, "projects"),
    );
    expect(r.seen).toContain("INIT");
    expect(r.pwned).toBe(false);
    expect(r.status).toBe("blocked");
    expect(r.why).toMatch(/a repository the run made: core\.fsmonitor/);
    expect(existsSync(join(ws, ".git"))).toBe(false);
    const plain = join(emu.dir, "projects", "plain2");
    mkdirSync(plain, { recursive: true });
    const ok = await attack(emu, plain, "git init -q . && echo INIT", join(emu.dir, "projects"));
    expect(ok.status, ok.why).toBe("done");
    expect(existsSync(join(plain, ".git"))).toBe(true);
  });
});
