import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runWorkspaceTool } from "../../src/agents/local-llm/workspace-tools.js";

const setup = () => {
  const root = mkdtempSync(join(tmpdir(), "hkb-ws-"));
  mkdirSync(join(root, "ws"));
  writeFileSync(join(root, "secret.txt"), "outside");
  const o = {
    root: join(root, "ws"),
    allowCommands: ["echo"],
    commandTimeoutMs: 5000,
    outputCap: 1000,
    env: { PATH: process.env.PATH ?? "" },
    signal: new AbortController().signal,
  };
  return { root, o };
};

describe("workspace tools", () => {
  it("read, write, list and search inside the workspace", async () => {
    const { o } = setup();
    expect(await runWorkspaceTool("write_file", { path: "src/a.txt", content: "needle here\n" }, o)).toBe("wrote src/a.txt (12 chars)");
    expect(await runWorkspaceTool("read_file", { path: "src/a.txt" }, o)).toBe("needle here\n");
    expect(await runWorkspaceTool("list_dir", { path: "." }, o)).toBe("src/");
    expect(await runWorkspaceTool("search_text", { text: "needle" }, o)).toBe("src/a.txt:1: needle here");
  });
  it("refuses paths outside the workspace, also through a symlink", async () => {
    const { root, o } = setup();
    await expect(runWorkspaceTool("read_file", { path: "../secret.txt" }, o)).rejects.toThrow(/outside the workspace/);
    symlinkSync(join(root, "secret.txt"), join(o.root, "link.txt"));
    await expect(runWorkspaceTool("read_file", { path: "link.txt" }, o)).rejects.toThrow(/link\.txt is a symbolic link/);
    await expect(runWorkspaceTool("write_file", { path: "/etc/x", content: "" }, o)).rejects.toThrow(/outside the workspace/);
  });
  it("runs only allow-listed commands", async () => {
    const { o } = setup();
    expect(await runWorkspaceTool("run_command", { command: "echo hi" }, o)).toBe("exit 0\nhi\n");
    await expect(runWorkspaceTool("run_command", { command: "rm -rf /" }, o)).rejects.toThrow(/not on the allow-list/);
  });
});
