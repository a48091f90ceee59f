// Issue rows 1, 2 and 5 of the hostile suite on real Hermes (HERMES_BIN): a deliverable swapped for
// a link while the real `attach` runs (Hermes reads by path and follows links: only the bridge's
// staged copy is ever handed to it), a redirected `.git` in a workspace (nothing runs), and a claim the
// real CLI commits and then fails (`worktree` with no default workdir): closed at once, not stranded.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { splitCommand } from "../../src/config/command.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu, type ShowDoc } from "../helpers/emulator.js";

const bin = process.env.HERMES_BIN;
const real = () => Emu.create("real", { command: splitCommand(bin ?? "") });
const HOSTILE = resolve("test/fixtures/agents/hostile-agent.mjs");
const reasonOf = (d: ShowDoc) => String(d.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");

let board: Emu | undefined;
afterEach(() => {
  board?.cleanup();
  board = undefined;
});

describe.skipIf(!bin)("hostile workspaces on the real Hermes CLI", () => {
  it("row 1: a deliverable swapped for a link while the real `attach` runs: the host file never reaches the board", async () => {
    board = await real();
    const secret = join(board.dir, "host-secret.txt");
    writeFileSync(secret, "REAL-HOST-SECRET-4471\n", { mode: 0o600 });
    const marks = mkdtempSync(join(tmpdir(), "hkb-marks-"));
    const id = await board.createTask("swap", { assignee: SEAT, body: "MODE:swap" });
    const b = await runBridge(board, {
      env: { FIXTURE_TARGET: secret, FIXTURE_MARK_DIR: marks },
      base: {
        hermes: {
          command: [process.execPath, resolve("test/fixtures/attach-marker.mjs"), ...board.command],
          home: board.home,
          env: { HOME: board.dir, FIXTURE_MARK_DIR: marks },
        },
        agent: { kind: "command", command: [process.execPath, HOSTILE], passEnv: ["FIXTURE_TARGET", "FIXTURE_MARK_DIR"], killGraceSeconds: 1 },
      },
    });
    await b.daemon.done;
    const d = await board.show(id);
    expect(d.task.status).toBe("done");
    expect(existsSync(join(marks, "attach-started"))).toBe(true);
    const atts = JSON.parse((await board.kanban(["attachments", id, "--json"])).stdout) as { filename: string; stored_path: string }[];
    expect(atts.map((a) => a.filename)).toEqual(["report.md"]);
    expect(readFileSync(atts[0]?.stored_path ?? "", "utf8")).toBe("# the real report\n");
    expect(JSON.stringify(d)).not.toContain("REAL-HOST-SECRET");
  });

  it("row 2: a `worktree`-style workspace whose .git the agent redirects (fsmonitor, filter, hooks): nothing runs, the run blocks naming it", async () => {
    board = await real();
    const marker = join(board.dir, "PWNED");
    const env = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
    const main = join(board.dir, "projects", "main");
    mkdirSync(main, { recursive: true });
    const git = (...a: string[]) => execFileSync("git", ["-C", main, ...a], { env });
    git("init", "-q", "-b", "main");
    writeFileSync(join(main, "README.md"), "x\n");
    git("add", ".");
    git("commit", "-qm", "init");
    const wt = join(board.dir, "projects", "wt");
    git("worktree", "add", "-q", "-b", "wt/task", wt);
    const id = await board.createTask("redirect", { assignee: SEAT, body: "MODE:git-redirect", workspace: `dir:${wt}` });
    await (
      await runBridge(board, {
        env: { FIXTURE_MARKER: marker, DEPLOY_TOKEN: "planted-token-value-5521" },
        base: {
          agent: { kind: "command", command: [process.execPath, HOSTILE], passEnv: ["FIXTURE_MARKER"], killGraceSeconds: 1 },
          workspace: { allowedRoots: [join(board.dir, "projects")] },
          gate: { allowDirty: true },
        },
      })
    ).daemon.done;
    expect(existsSync(marker)).toBe(false);
    // the redirected .git is caught after the run (git/guard.ts): put back, and the close is a block naming it
    const d = await board.show(id);
    expect(d.task.status).toBe("blocked");
    expect(String(d.events.findLast((e) => e.kind === "blocked")?.payload?.reason)).toMatch(/\.git in .* was replaced or redirected during the run/);
  });

  it("row 5: the real CLI commits a claim and then fails (worktree, no default workdir): the task is closed at once, naming the error", async () => {
    board = await real();
    const id = await board.createTask("worktree without a workdir", { assignee: SEAT, body: "MODE:complete", workspace: "worktree" });
    await (await runBridge(board)).daemon.done;
    const d = await board.show(id);
    expect(d.task.status).toBe("blocked");
    expect(reasonOf(d)).toMatch(/`hermes kanban claim` then failed: .*has workspace_kind=worktree but no workspace_path/);
    expect(d.runs.map((r) => r.outcome)).toEqual(["blocked"]);
  });
});
