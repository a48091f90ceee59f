// The success gate end to end: verification from the body and config, changed files, hygiene.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

const body = (mode: string, commands?: string[]) => `MODE:${mode}${commands ? `\n\n## Verification\n\`\`\`sh\n${commands.join("\n")}\n\`\`\`\n` : ""}`;
const reasonOf = async (id: string) => String((await emu.show(id)).events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");

function gitRepo(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const g = (...a: string[]) =>
    execFileSync("git", ["-C", dir, ...a], {
      env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
    });
  g("init", "-q");
  writeFileSync(join(dir, "README"), "hi\n");
  g("add", ".");
  g("commit", "-qm", "init");
  return dir;
}

describe("success gate", () => {
  it("runs config then body commands, records them and the changed files", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("verified", { assignee: SEAT, body: body("complete", ["test -f out.txt", "echo body-check"]) });
    await (await runBridge(emu, { base: { gate: { commands: ["echo config-check"], bodyVerification: true, allowedCommands: ["test -f", "echo"] } } })).daemon
      .done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    const m = d.runs.at(-1)?.metadata as { verification: { command: string; exit_code: number; output_tail: string }[]; changed_files: string[] };
    expect(m.verification.map((v) => [v.command, v.exit_code, v.output_tail])).toEqual([
      ["echo config-check", 0, "config-check"],
      ["test -f out.txt", 0, ""],
      ["echo body-check", 0, "body-check"],
    ]);
    expect(m.changed_files).toEqual(["out.txt"]);
  });

  it("a failing command blocks as test failure with its output tail; the workspace path is in the reason", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("failing", { assignee: SEAT, body: body("complete", ["echo 'AssertionError: 2 != 3' >&2; exit 1"]) });
    await (await runBridge(emu, { base: { gate: { bodyVerification: true, allowedCommands: ["/echo .*/"] } } })).daemon.done;
    const r = await reasonOf(id);
    expect(r).toMatch(/^cause: test failure$/m);
    expect(r).toMatch(/exited 1\. Output tail: AssertionError: 2 != 3/);
    expect(r).toMatch(/workspace \/\S+t_[0-9a-f]+/);
  });

  it("task text is untrusted: body commands do not run unless turned on and allow-listed", async () => {
    emu = await Emu.create();
    const marker = join(emu.dir, "pwned");
    const id = await emu.createTask("hostile", { assignee: SEAT, body: body("complete", [`touch ${marker}`, "echo allowed"]) });
    await (await runBridge(emu)).daemon.done;
    const off = (await emu.show(id)).runs.at(-1)?.metadata as Record<string, unknown>;
    expect(off).not.toHaveProperty("verification");
    expect(off.verification_skipped).toEqual([`touch ${marker}`, "echo allowed"]);
    const id2 = await emu.createTask("hostile 2", { assignee: SEAT, body: body("complete", [`touch ${marker}`, "echo allowed"]) });
    await (await runBridge(emu, { base: { gate: { bodyVerification: true, allowedCommands: ["echo"] } } })).daemon.done;
    const on = (await emu.show(id2)).runs.at(-1)?.metadata as { verification: { command: string }[]; verification_skipped: string[] };
    expect(on.verification.map((v) => v.command)).toEqual(["echo allowed"]);
    expect(on.verification_skipped).toEqual([`touch ${marker}`]);
    expect(existsSync(marker)).toBe(false);
  });

  it("a verification that hangs is cut by its timeout", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("slow check", { assignee: SEAT, body: body("complete", ["sleep 30"]) });
    await (await runBridge(emu, { base: { gate: { timeoutSeconds: 1, bodyVerification: true, allowedCommands: ["sleep"] } } })).daemon.done;
    expect(await reasonOf(id)).toMatch(/`sleep 30` timed out after 1 s/);
  });

  it("requireChanges blocks a success with no change; no Verification section means no verification key", async () => {
    emu = await Emu.create();
    const none = await emu.createTask("no change", { assignee: SEAT, body: body("nochange") });
    await (await runBridge(emu, { base: { gate: { requireChanges: true } } })).daemon.done;
    expect(await reasonOf(none)).toMatch(/no change \(gate.requireChanges\)/);
    const plain = await emu.createTask("plain", { assignee: SEAT, body: body("complete") });
    await (await runBridge(emu)).daemon.done;
    expect((await emu.show(plain)).runs.at(-1)?.metadata).not.toHaveProperty("verification");
  });

  it("gate.minItems blocks a completion that reports fewer items", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("few", { assignee: SEAT, body: body("complete") });
    await (await runBridge(emu, { base: { gate: { minItems: 5 } } })).daemon.done;
    expect(await reasonOf(id)).toMatch(/reported 3 item\(s\), fewer than gate.minItems \(5\)/);
  });

  it("a dirty git work tree is refused before the agent starts; a clean one reports git changes", async () => {
    emu = await Emu.create();
    const dirty = gitRepo(join(emu.dir, "dirty"));
    writeFileSync(join(dirty, "README"), "local edit\n");
    const d1 = await emu.createTask("dirty", { assignee: SEAT, body: body("complete"), workspace: `dir:${dirty}` });
    const clean = gitRepo(join(emu.dir, "clean"));
    const d2 = await emu.createTask("clean", { assignee: SEAT, body: body("complete"), workspace: `dir:${clean}` });
    await (await runBridge(emu, { base: { workspace: { allowedRoots: [emu.dir] } } })).daemon.done;
    const r = await reasonOf(d1);
    expect(r).toMatch(/^cause: environment$/m);
    expect(r).toMatch(/uncommitted changes that this run did not make \(README\); the agent was not started/);
    const m = (await emu.show(d2)).runs.at(-1)?.metadata as { changed_files: string[] };
    expect(m.changed_files).toEqual(["out.txt"]);
  });

  it("gate.allowDirty lets a dirty tree through", async () => {
    emu = await Emu.create();
    const dirty = gitRepo(join(emu.dir, "dirty"));
    writeFileSync(join(dirty, "README"), "local edit\n");
    const id = await emu.createTask("dirty ok", { assignee: SEAT, body: body("complete"), workspace: `dir:${dirty}` });
    await (await runBridge(emu, { base: { gate: { allowDirty: true }, workspace: { allowedRoots: [emu.dir] } } })).daemon.done;
    expect((await emu.show(id)).task.status).toBe("done");
  });
});
