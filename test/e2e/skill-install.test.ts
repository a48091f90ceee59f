// `hermes-bridge skill install`: SKILL.md is an Agent Skill (name + description front matter) that the
// real Claude Code CLI loads from where the install put it — shown by the CLI itself: its init event
// lists the skill and its model request carries the skill's description.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runProcess } from "../../src/process/runner.js";
import { CLI_BIN } from "../helpers/emulator.js";
import { AnthropicMock } from "../helpers/model-mocks.js";
import { CLAUDE } from "../helpers/agent-clis.js";

let dir: string | undefined;
let mock: AnthropicMock | undefined;
afterEach(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await mock?.close();
});

describe("skill install", () => {
  it("--claude --dir: the real Claude Code CLI loads it", async () => {
    dir = mkdtempSync(join(tmpdir(), "hkb-skill-"));
    const home = join(dir, "claude");
    const env = { PATH: process.env.PATH ?? "", HOME: dir };
    const r = await runProcess({ argv: [process.execPath, CLI_BIN, "skill", "install", "--claude", "--dir", home], env, timeoutMs: 60_000 });
    expect(r.exitCode).toBe(0);
    const file = join(home, "skills", "hermes-kanban-bridge", "SKILL.md");
    expect(r.stdout).toBe(`installed ${file}\n`);
    const description = /^description: (.+)$/m.exec(readFileSync(file, "utf8"))?.[1] ?? "";
    expect(description.length).toBeGreaterThan(20);

    mock = await new AnthropicMock([{ blocks: [{ text: "ok" }] }]).start();
    const c = await runProcess({
      argv: [CLAUDE, "-p", "say ok", "--output-format", "stream-json", "--verbose", "--max-turns", "1"],
      env: { ...env, CLAUDE_CONFIG_DIR: home, ANTHROPIC_BASE_URL: mock.baseUrl, ANTHROPIC_API_KEY: "sk-ant-mock", CLAUDE_CODE_MAX_RETRIES: "0" },
      cwd: dir,
      timeoutMs: 60_000,
    });
    const init = c.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; subtype?: string; skills?: string[] })
      .find((e) => e.type === "system" && e.subtype === "init");
    expect(init?.skills).toContain("hermes-kanban-bridge");
    expect(JSON.stringify(mock.mainBodies[0] ?? mock.bodies.at(-1))).toContain(description.slice(0, 60));
  });

  it("names what is missing: no target, or --dir with two", async () => {
    const env = { PATH: process.env.PATH ?? "", HOME: tmpdir() };
    const none = await runProcess({ argv: [process.execPath, CLI_BIN, "skill", "install"], env, timeoutMs: 60_000 });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain("name at least one of --claude, --codex, --hermes");
    const two = await runProcess({ argv: [process.execPath, CLI_BIN, "skill", "install", "--claude", "--codex", "--dir", "/tmp/x"], env, timeoutMs: 60_000 });
    expect(two.exitCode).toBe(2);
    expect(two.stderr).toContain("--dir names one agent's config dir");
  });
});
