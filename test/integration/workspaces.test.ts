// Seats anywhere: the board on "another host" (the emulator prints its workspace paths under a prefix
// that does not exist here). mapped: the board's files mounted elsewhere; checkout: a git worktree per
// task on its branch, committed and pushed at every close (WIP at a cut, continued by another bridge),
// or an empty dir whose deliverables reach the board through workspace.uploadCommand; auto picks each.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { chmodSync, copyFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { EMULATOR_BIN, Emu, type ShowDoc } from "../helpers/emulator.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

const PREFIX = "/remote-board-host";
const remote = (extra: Record<string, unknown> = {}) => ({
  hermes: {
    command: emu.command,
    home: emu.home,
    callServer: "on",
    env: { HERMES_EMULATOR_WORKSPACE_PREFIX: PREFIX },
    retry: { retries: 3, minDelayMs: 20, maxDelayMs: 200, deadlineSeconds: 30 },
  },
  ...extra,
});
const reasonOf = (doc: ShowDoc) => String(doc.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");
const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-C", dir, ...args], {
    encoding: "utf8",
    env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
  }).trim();

/** A bare origin with one commit on main. */
function origin(): string {
  const work = join(emu.dir, "seed");
  mkdirSync(work);
  git(work, "init", "-q", "-b", "main");
  writeFileSync(join(work, "README.md"), "project\n");
  git(work, "add", ".");
  git(work, "commit", "-qm", "init");
  const bare = join(emu.dir, "origin.git");
  execFileSync("git", ["clone", "-q", "--bare", work, bare]);
  return bare;
}

describe("workspace modes", () => {
  it("mapped: the claimed path is the board host's; the agent works in the mounted path and deliverables are attached", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("mapped", { assignee: SEAT, body: "MODE:deliver" });
    const b = await runBridge(emu, { base: remote({ workspace: { pathMap: { [`${PREFIX}${emu.home}`]: emu.home } } }) });
    await b.daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    const asBoardShowsIt = JSON.parse((await emu.kanban(["show", id, "--json"], { HERMES_EMULATOR_WORKSPACE_PREFIX: PREFIX })).stdout) as ShowDoc;
    expect(asBoardShowsIt.task.workspace_path).toBe(`${PREFIX}${d.task.workspace_path}`);
    expect(d.runs.at(-1)?.metadata).toMatchObject({ bridge: { workspace: { mode: "mapped", path: expect.stringMatching(new RegExp(`^${emu.home}/`)) } } });
    const att = JSON.parse((await emu.kanban(["attachments", id, "--json"])).stdout) as { filename: string }[];
    expect(att.map((a) => a.filename)).toEqual(["report.md"]);
  });

  it("a bad map blocks the task clearly, naming the map entry", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("bad map", { assignee: SEAT, body: "MODE:complete" });
    await (await runBridge(emu, { base: remote({ workspace: { mode: "mapped", pathMap: { [PREFIX]: "/nonexistent-mount" } } }) })).daemon.done;
    const r = reasonOf(await emu.show(id));
    expect(r).toMatch(/^cause: environment$/m);
    expect(r).toContain(`workspace.pathMap["${PREFIX}"]`);
    expect(r).toMatch(/which does not exist on this host/);
  });

  it("auto picks board when the path exists here, mapped with a map, checkout otherwise", async () => {
    emu = await Emu.create();
    const a = await emu.createTask("a", { assignee: SEAT, body: "MODE:complete" });
    await (await runBridge(emu)).daemon.done;
    const b = await emu.createTask("b", { assignee: SEAT, body: "MODE:complete" });
    await (await runBridge(emu, { base: remote({ workspace: { pathMap: { [PREFIX]: "/" } } }) })).daemon.done;
    const c = await emu.createTask("c", { assignee: SEAT, body: "MODE:complete" });
    await (await runBridge(emu, { base: remote() })).daemon.done;
    const mode = async (id: string) =>
      ((await emu.show(id)).runs.at(-1)?.metadata as { bridge?: { workspace?: { mode?: string } } } | undefined)?.bridge?.workspace?.mode;
    expect([await mode(a), await mode(b), await mode(c)]).toEqual(["board", "mapped", "checkout"]);
    // the checkout had no repository to push to: the summary says where the work is
    expect((await emu.show(c)).runs.at(-1)?.summary).toMatch(
      /\n\nWorkspace: the work stays on \S+ in .+: \/remote-board-host\/.+ is not on this host and workspace.repos names no repository/,
    );
  });

  it("a dir: workspace that is a file blocks before the agent starts, naming the path — never an empty checkout marked done", async () => {
    emu = await Emu.create();
    const projects = join(emu.dir, "projects");
    mkdirSync(projects);
    const file = join(projects, "notes.txt");
    writeFileSync(file, "a file, not a folder\n");
    const id = await emu.createTask("file ws", { assignee: SEAT, body: "MODE:complete", workspace: `dir:${file}` });
    const b = await runBridge(emu, { base: { workspace: { allowedRoots: [projects] } } });
    await b.daemon.done;
    const doc = await emu.show(id);
    expect(doc.task.status).toBe("blocked");
    const r = reasonOf(doc);
    expect(r).toMatch(/^cause: environment$/m);
    expect(r).toContain(`the task's workspace ${file} exists on this host but is not a directory (a file)`);
    expect(b.reports[0]?.decision).toBe("block");
    expect(readFileSync(file, "utf8")).toBe("a file, not a folder\n");
  });
});

describe("checkout mode with a repository", () => {
  it("commits the agent's work on the task branch and pushes it; the artifacts name branch and commit", async () => {
    emu = await Emu.create();
    const bare = origin();
    const id = await emu.createTask("git task", { assignee: SEAT, body: "MODE:complete" });
    await (await runBridge(emu, { base: remote({ workspace: { repos: { bridge: bare }, localRoot: join(emu.dir, "seat-a") } }) })).daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    const branch = `hermes/${id}`;
    expect(git(bare, "show", `${branch}:out.txt`)).toBe("done");
    expect(git(bare, "log", "--format=%s", "-1", branch)).toBe(`${id} run 1 (${SEAT})`);
    const commit = git(bare, "rev-parse", branch);
    expect((d.runs.at(-1)?.metadata as { artifacts?: unknown[] } | undefined)?.artifacts).toContainEqual({
      type: "git",
      label: "branch",
      url: `${bare}#${branch}`,
      commit,
    });
  });

  it("a run cut at its deadline pushes a WIP commit; a second bridge with its own local root continues from it", async () => {
    emu = await Emu.create();
    const bare = origin();
    const id = await emu.createTask("halves", { assignee: SEAT, body: "MODE:partial" });
    // 13 s to the cut: a git checkout and the agent's start must fit before it on a busy machine
    const cut = { claim: { ttlSeconds: 38, safetySeconds: 25 }, heartbeat: { intervalSeconds: 1 } };
    await (await runBridge(emu, { stateName: "state-a", base: remote({ ...cut, workspace: { repos: { bridge: bare }, localRoot: join(emu.dir, "seat-a") } }) }))
      .daemon.done;
    const branch = `hermes/${id}`;
    expect(git(bare, "log", "--format=%s", "-1", branch)).toBe(`WIP: ${id} run 1 (${SEAT})`);
    expect(git(bare, "show", `${branch}:part1.txt`)).toBe("first half");
    expect(reasonOf(await emu.show(id))).toMatch(/Workspace: WIP commit [0-9a-f]{12} on hermes\/t_[0-9a-f]+ pushed to /);
    await emu.kanban(["unblock", id]);
    await (await runBridge(emu, { stateName: "state-b", base: remote({ workspace: { repos: { bridge: bare }, localRoot: join(emu.dir, "seat-b") } }) })).daemon
      .done;
    expect((await emu.show(id)).task.status).toBe("done");
    expect(git(bare, "show", `${branch}:part2.txt`)).toBe("second half");
    expect(existsSync(join(emu.dir, "seat-b", "bridge", id, "part1.txt"))).toBe(true);
  });
});

describe("checkout mode without a repository", () => {
  it("a deliverable reaches the board through workspace.uploadCommand, then attach", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("upload", { assignee: SEAT, body: "MODE:deliver" });
    const uploads = join(emu.dir, "uploads");
    const workspace = {
      localRoot: join(emu.dir, "seat-a"),
      // "scp {file} board-host:{dir}/": the board host sees `uploads` at PREFIX + uploads
      uploadCommand: ["sh", "-c", 'mkdir -p "$1" && cp "$2" "$1/$3"', "upload", `${uploads}/{task}`, "{file}", "{name}"],
      uploadDir: `${PREFIX}${uploads}/{task}`,
    };
    await (await runBridge(emu, { base: remote({ workspace }) })).daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect(readFileSync(join(uploads, id, "report.md"), "utf8")).toBe("# report\n");
    const att = JSON.parse((await emu.kanban(["attachments", id, "--json"])).stdout) as { filename: string }[];
    expect(att.map((a) => a.filename)).toEqual(["report.md"]);
  });

  it("a deliverable named with shell and option syntax is uploaded under a safe name and attached under its own", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("odd", { assignee: SEAT, body: "MODE:deliver-odd" });
    const uploads = join(emu.dir, "uploads");
    const workspace = {
      localRoot: join(emu.dir, "seat-a"),
      // as a remote shell would see it (legacy scp): the name is shell input there
      uploadCommand: ["sh", "-c", `mkdir -p "$1" && cd "$1" && cp "$2" ./{name}`, "upload", `${uploads}/{task}`, "{file}"],
      uploadDir: `${PREFIX}${uploads}/{task}`,
    };
    await (await runBridge(emu, { base: remote({ workspace }) })).daemon.done;
    expect((await emu.show(id)).task.status).toBe("done");
    expect(readdirSync(join(uploads, id))).toEqual(["_o_x___touch_PWNED___q_.md"]);
    const att = JSON.parse((await emu.kanban(["attachments", id, "--json"])).stdout) as { filename: string }[];
    expect(att.map((a) => a.filename)).toEqual(["-o x $(touch PWNED) 'q'.md"]);
  });
});

describe("the CLI through ssh (docs/remote-seats.md)", () => {
  it("hermes.command = ssh board-host hermes: the seat works a task in its own checkout dir, its deliverable uploaded", async () => {
    emu = await Emu.create();
    // A fake ssh (test/fixtures/fake-ssh.sh) installed as `ssh`: the remote command goes through /bin/sh, no env arrives.
    const ssh = join(emu.dir, "bin", "ssh");
    mkdirSync(join(emu.dir, "bin"));
    copyFileSync(resolve("test/fixtures/fake-ssh.sh"), ssh);
    chmodSync(ssh, 0o755);
    const id = await emu.createTask("over ssh", { assignee: SEAT, body: "MODE:deliver" });
    const uploads = join(emu.dir, "uploads");
    const b = await runBridge(emu, {
      base: {
        hermes: {
          command: [ssh, "-o", "BatchMode=yes", "board-host", process.execPath, EMULATOR_BIN],
          home: emu.home,
          env: { HERMES_EMULATOR_WORKSPACE_PREFIX: PREFIX },
          retry: { retries: 3, minDelayMs: 20, maxDelayMs: 200, deadlineSeconds: 30 },
        },
        workspace: {
          localRoot: join(emu.dir, "seat-a"),
          uploadCommand: ["sh", "-c", 'mkdir -p "$1" && cp "$2" "$1/$3"', "upload", `${uploads}/{task}`, "{file}", "{name}"],
          uploadDir: `${PREFIX}${uploads}/{task}`,
        },
      },
    });
    await b.daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect(d.runs).toHaveLength(1);
    expect(d.runs[0]?.metadata).toMatchObject({ bridge: { workspace: { mode: "checkout" } } });
    // closed once, on its own run (that the fencing pair crosses ssh: test/contract/ssh-board.test.ts)
    expect(d.events.filter((e) => e.kind === "completed" && e.run_id === d.runs[0]?.id)).toHaveLength(1);
    expect(JSON.parse((await emu.kanban(["attachments", id, "--json"])).stdout)).toMatchObject([{ filename: "report.md" }]);
  });
});
