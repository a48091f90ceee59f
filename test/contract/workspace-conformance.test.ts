// The Workspace port's conformance suite, run over every mode (board, mapped, checkout with a
// repository): a workspace is a directory on this host inside the allowed roots (links resolved), the
// same task gets the same directory again (continuity), a file in it is named for the CLI (or left to
// an upload), finish records the work, and a workspace outside the allowed roots is refused naming
// the setting.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Task } from "../../src/board/port.js";
import { WORKSPACE_MODES } from "../../src/config/schema.js";
import { hardenedGit } from "../../src/git/runner.js";
import type { Lease } from "../../src/lease/lease.js";
import { WorkspaceRefused } from "../../src/workspace/port.js";
import { LocalWorkspaces, type WorkspaceSettings } from "../../src/workspace/resolve.js";

interface ModeHarness {
  /** A provider, and the board path a claim of `taskId` prints in this mode. */
  setup(root: string): { provider: LocalWorkspaces; boardPath: (taskId: string) => string; outside: string };
  /** The CLI can read files by path (board, mapped) — else they are uploaded (checkout). */
  shared: boolean;
  /** finish commits and names the branch. */
  git: boolean;
}

const task = (id: string): Task => ({
  id,
  title: "t",
  body: null,
  assignee: "seat",
  status: "running",
  priority: 0,
  tenant: null,
  workspaceKind: "dir",
  workspacePath: null,
  branchName: null,
  projectId: null,
  createdAt: 0,
  startedAt: 0,
  completedAt: null,
  result: null,
  skills: [],
  maxRuntimeSeconds: null,
  pins: { model: null, provider: null },
  completionContract: null,
  lastFailure: null,
});
const lease = (id: string, workspace: string): Lease => ({
  board: "b",
  taskId: id,
  runId: 1,
  lock: null,
  workspace,
  claimedAt: 0,
  expiresAt: 0,
  ttlSeconds: 900,
});

function settings(root: string, o: Partial<WorkspaceSettings>): WorkspaceSettings {
  return {
    mode: "auto",
    allowedRoots: [],
    pathMap: {},
    localRoot: join(root, "checkouts"),
    repos: {},
    push: true,
    branches: { prefix: "hermes/", allowed: [] },
    hermesHomes: [join(root, "home")],
    seat: "seat",
    ...o,
  };
}
const gitOf = (root: string) => hardenedGit(process.env, { globalConfig: join(root, "gitconfig"), passEnv: [] });

function origin(root: string): string {
  const work = join(root, "seed");
  mkdirSync(work);
  const env = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
  const g = (...a: string[]) => execFileSync("git", ["-C", work, ...a], { env });
  g("init", "-q", "-b", "main");
  writeFileSync(join(work, "README.md"), "x\n");
  g("add", ".");
  g("commit", "-qm", "init");
  execFileSync("git", ["clone", "-q", "--bare", work, join(root, "origin.git")]);
  return join(root, "origin.git");
}

const MODES: Record<string, ModeHarness> = {
  board: {
    shared: true,
    git: false,
    setup: (root) => {
      const projects = join(root, "projects");
      return {
        provider: new LocalWorkspaces(settings(root, { mode: "board", allowedRoots: [projects] }), gitOf(root)),
        boardPath: (id) => {
          mkdirSync(join(projects, id), { recursive: true });
          return join(projects, id);
        },
        outside: mkdtempSync(join(tmpdir(), "hkb-outside-")),
      };
    },
  },
  mapped: {
    shared: true,
    git: false,
    setup: (root) => {
      const mount = join(root, "mnt");
      return {
        provider: new LocalWorkspaces(
          settings(root, { mode: "mapped", allowedRoots: ["/board-host/projects"], pathMap: { "/board-host": mount } }),
          gitOf(root),
        ),
        boardPath: (id) => {
          mkdirSync(join(mount, "projects", id), { recursive: true });
          return `/board-host/projects/${id}`;
        },
        outside: mkdtempSync(join(tmpdir(), "hkb-outside-")),
      };
    },
  },
  checkout: {
    shared: false,
    git: true,
    setup: (root) => ({
      provider: new LocalWorkspaces(settings(root, { mode: "checkout", allowedRoots: ["/board-host"], repos: { b: origin(root) } }), gitOf(root)),
      boardPath: (id) => `/board-host/workspaces/${id}`,
      outside: "/etc",
    }),
  },
};

describe("the workspace modes", () => {
  it("every mode of the list has a conformance harness", () => {
    expect(WORKSPACE_MODES.filter((m) => !MODES[m])).toEqual([]);
  });
});

describe.each(WORKSPACE_MODES.flatMap((m) => (MODES[m] ? [[m, MODES[m]] as const] : [])))("Workspace conformance: %s", (_mode, h) => {
  it("a directory inside the allowed roots; the same task gets it again; files named for the CLI; finish records the work", async () => {
    const root = mkdtempSync(join(tmpdir(), "hkb-wsc-"));
    const { provider, boardPath } = h.setup(root);
    const bp = boardPath("t_1");
    const ws = await provider.prepare(lease("t_1", bp), task("t_1"));
    expect(statSync(ws.local).isDirectory()).toBe(true);
    expect(ws.boardPath).toBe(bp);
    expect(ws.sharedWithBoard).toBe(h.shared);
    expect(ws.mode).toBe(_mode);
    writeFileSync(join(ws.local, "out.txt"), "work\n");
    const named = ws.boardPathOf(join(ws.local, "out.txt"));
    if (h.shared) expect(named).toBe(`${bp}/out.txt`);
    else expect(named).toBeNull();
    const again = await provider.prepare(lease("t_1", bp), task("t_1"));
    expect(realpathSync(again.local)).toBe(realpathSync(ws.local));
    const fin = await ws.finish({ kind: "complete", message: "t_1 done" });
    if (h.git) {
      expect(fin.artifacts[0]).toMatchObject({ type: "git", url: expect.stringMatching(/#hermes\/t_1$/) });
      expect(fin.note).toMatch(/^commit [0-9a-f]{12} on hermes\/t_1 pushed/);
    } else expect(fin).toEqual({ artifacts: [], note: null });
  });

  it("a workspace outside the allowed roots is refused, naming the setting", async () => {
    const root = mkdtempSync(join(tmpdir(), "hkb-wsc-"));
    const { provider, outside } = h.setup(root);
    const err = await provider.prepare(lease("t_2", outside), task("t_2")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkspaceRefused);
    expect((err as WorkspaceRefused).setting).toBe("workspace.allowedRoots");
  });

  it.skipIf(!h.shared)("a workspace that is a link out of the allowed roots is refused (links resolved in every view)", async () => {
    const root = mkdtempSync(join(tmpdir(), "hkb-wsc-"));
    const { provider, boardPath, outside } = h.setup(root);
    const bp = boardPath("t_3");
    const local = h === MODES.mapped ? join(root, "mnt", "projects", "t_3") : bp;
    execFileSync("rm", ["-rf", local]);
    symlinkSync(outside, local);
    const err = await provider.prepare(lease("t_3", bp), task("t_3")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkspaceRefused);
    expect(String((err as Error).message)).toMatch(/outside the allowed roots/);
    expect(existsSync(join(outside, "out.txt"))).toBe(false);
  });
});
