// What the agent leaves in its workspace is as untrusted as task text (issue rows 1, 6, 7, 8, 11):
// a deliverable swapped for a link while `attach` runs, a hard link to a host file, a `dir:` workspace
// that is a link out of the allowed roots (mapped mode), a secret or a newline in a file name, and the
// state dir's own path — none of it reaches the board, and every run still closes.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hasAllFields } from "../../src/result/template.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { EMULATOR_BIN, Emu, type ShowDoc } from "../helpers/emulator.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

const HOSTILE = resolve("test/fixtures/agents/hostile-agent.mjs");
const SECRET = "TOP-SECRET-HOST-CONTENT-9931";
const reasonOf = (d: ShowDoc) => String(d.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");
const attachments = async (id: string) =>
  JSON.parse((await emu.kanban(["attachments", id, "--json"])).stdout) as { filename: string; size: number; stored_path: string }[];

/** A host file the agent must never get onto the board. */
function hostFile(): string {
  const f = join(emu.dir, "host-secret.txt");
  writeFileSync(f, `${SECRET}\n`, { mode: 0o600 });
  return f;
}

// The bridge's own helpers must hold without the jail too: the hostile agent runs unconfined here
// (agent.isolation: none), as it would on a host without bubblewrap. (In the jail it cannot even reach
// the host files these rows link to: test/hostile/jail.test.ts.)
const hostile = (env: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  env,
  base: { agent: { kind: "command", command: [process.execPath, HOSTILE], passEnv: Object.keys(env), killGraceSeconds: 1, isolation: "none" }, ...extra },
});

describe("deliverables the agent can tamper with", () => {
  it("row 1: a deliverable swapped for a link to a host file while `attach` runs — the staged copy is attached, never the host file", async () => {
    emu = await Emu.create();
    const marks = mkdtempSync(join(tmpdir(), "hkb-marks-"));
    const id = await emu.createTask("swap", { assignee: SEAT, body: "MODE:swap" });
    const b = await runBridge(emu, {
      ...hostile({ FIXTURE_TARGET: hostFile(), FIXTURE_MARK_DIR: marks }),
      base: {
        ...hostile({ FIXTURE_TARGET: "", FIXTURE_MARK_DIR: "" }).base,
        hermes: {
          command: [process.execPath, resolve("test/fixtures/attach-marker.mjs"), process.execPath, EMULATOR_BIN],
          home: emu.home,
          env: { FIXTURE_MARK_DIR: marks },
          retry: { retries: 3, minDelayMs: 20, maxDelayMs: 200, deadlineSeconds: 30 },
        },
      },
    });
    await b.daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    const [att] = await attachments(id);
    expect(att?.filename).toBe("report.md");
    // the swap happened (the marker was written by the attach call), and still only the real report is on the board
    expect(JSON.stringify(d)).not.toContain(SECRET);
    const { existsSync, readFileSync } = await import("node:fs");
    expect(existsSync(join(marks, "attach-started"))).toBe(true);
    expect(readFileSync(att?.stored_path ?? "", "utf8")).toBe("# the real report\n");
  });

  it("row 7: a hard link to a host file declared as a deliverable is refused, naming why", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("hardlink", { assignee: SEAT, body: "MODE:hardlink" });
    await (await runBridge(emu, hostile({ FIXTURE_TARGET: hostFile() }))).daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("blocked");
    expect(reasonOf(d)).toMatch(/report\.md could not be preserved on the board: it has 2 hard links/);
    expect(await attachments(id)).toEqual([]);
    expect(JSON.stringify(d)).not.toContain(SECRET);
  });

  it("row 8: a secret in a deliverable's name and in a progress line reaches neither the attachment nor the heartbeat", async () => {
    emu = await Emu.create();
    const secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    const id = await emu.createTask("secret name", { assignee: SEAT, body: "MODE:secret-name" });
    await (await runBridge(emu, hostile({ FIXTURE_SECRET: secret }))).daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    const atts = await attachments(id);
    expect(atts).toHaveLength(1);
    expect(JSON.stringify(atts)).not.toContain(secret);
    expect(JSON.stringify(d)).not.toContain(secret);
    expect(d.events.filter((e) => e.kind === "heartbeat").map((e) => String(e.payload?.note ?? ""))).toContainEqual(
      expect.stringContaining("uploading with [REDACTED]"),
    );
  });

  it("row 11: a newline in a deliverable's name is one attachment under a one-line name, and the run completes", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("newline name", { assignee: SEAT, body: "MODE:newline-name" });
    await (await runBridge(emu, hostile({}))).daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect((await attachments(id)).map((a) => a.filename)).toEqual(["two lines.md"]);
  });

  it("row 11: a block never carries the state dir's absolute path", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("fifo", { assignee: SEAT, body: "MODE:fifo" });
    const b = await runBridge(emu);
    await b.daemon.done;
    const d = await emu.show(id);
    const reason = reasonOf(d);
    expect(hasAllFields(reason)).toBe(true);
    expect(reason).toMatch(/<state dir>\/runs\/.*outcome\.json is not a regular file \(a FIFO\)/);
    expect(JSON.stringify(d)).not.toContain(b.config.stateDir);
  });
});

describe("a workspace that leads out of the allowed roots", () => {
  it("row 6: mapped mode — a `dir:` workspace that is a link under an allowed root, pointing elsewhere, is refused before the agent starts", async () => {
    emu = await Emu.create();
    const PREFIX = "/remote-board-host";
    const allowed = join(emu.dir, "projects");
    mkdirSync(allowed);
    const elsewhere = mkdtempSync(join(tmpdir(), "hkb-elsewhere-"));
    symlinkSync(elsewhere, join(allowed, "link"));
    const id = await emu.createTask("mapped link", { assignee: SEAT, body: "MODE:complete", workspace: `dir:${join(allowed, "link")}` });
    await (
      await runBridge(emu, {
        base: {
          hermes: {
            command: emu.command,
            home: emu.home,
            env: { HERMES_EMULATOR_WORKSPACE_PREFIX: PREFIX },
            retry: { retries: 3, minDelayMs: 20, maxDelayMs: 200, deadlineSeconds: 30 },
          },
          workspace: { mode: "mapped", pathMap: { [PREFIX]: "/" }, allowedRoots: [`${PREFIX}${allowed}`] },
        },
      })
    ).daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("blocked");
    expect(reasonOf(d)).toMatch(/resolves to .* on this host \(through workspace\.pathMap\), outside the allowed roots/);
    const { readdirSync } = await import("node:fs");
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("a `dir:` that is the allowed root itself is blocked saying how out — create the task again — never to widen workspace.allowedRoots, and the agent never starts", async () => {
    emu = await Emu.create();
    const allowed = join(emu.dir, "projects");
    mkdirSync(join(allowed, "b"), { recursive: true });
    writeFileSync(join(allowed, "b", "theirs.txt"), "another task's\n");
    const id = await emu.createTask("the root", { assignee: SEAT, body: "MODE:complete", workspace: `dir:${allowed}` });
    await (await runBridge(emu, { base: { workspace: { allowedRoots: [allowed] } } })).daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("blocked");
    const why = reasonOf(d);
    expect(why).toMatch(/The agent was not started: the task's workspace .*projects is the allowed root .*projects itself/);
    expect(why).toMatch(
      /options: A\) create the task again with a folder of its own inside an allowed root \(workspace\.allowedRoots\) \(hermes kanban create … --workspace dir:<folder>\) and archive this one/,
    );
    // widening the root would make the folder allowed, and with it every other task's workspace
    expect(why).not.toMatch(/fix workspace\.allowedRoots|Correct workspace\.allowedRoots/);
    expect(d.runs.at(-1)?.outcome).not.toBe("completed");
  });
});
