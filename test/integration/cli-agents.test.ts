// Claude Code and Codex adapters end to end with fixture executables in place of the real CLIs:
// the bridge's argv and MCP wiring, the real task-tools MCP server, the translators, the closes.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/jail/policy.js";
import { hasAllFields } from "../../src/result/template.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";

const FAKE = resolve("test/fixtures/agents/fake-cli.mjs");
const BWRAP = (await probeBwrap("bwrap", process.env)).ok || process.env.HKB_REQUIRE_BWRAP !== undefined;
let emu: Emu;
afterEach(() => emu?.cleanup());

async function run(
  kind: "claude-code" | "codex",
  script: string,
  isolation: "auto" | "none" = "auto",
  extra: { env?: Record<string, string>; login?: object } = {},
) {
  emu = await Emu.create();
  if (extra.login) {
    // the seat's own login (agent.configDir's default), as `claude auth login` left it
    mkdirSync(join(emu.dir, "state", "claude"), { recursive: true, mode: 0o700 });
    writeFileSync(join(emu.dir, "state", "claude", ".credentials.json"), JSON.stringify(extra.login), { mode: 0o600 });
  }
  const id = await emu.createTask(`${kind} ${script}`, { assignee: SEAT, body: "do the thing" });
  // the fake CLI writes what it was given to a dir the jail shows it (an operator's readWrite extra)
  const seenDir = join(emu.dir, "seen");
  mkdirSync(seenDir);
  chmodSync(seenDir, 0o777); // the agent's user writes it (a bridge running as root runs agents as another uid)
  const argvFile = join(seenDir, "argv.json");
  const b = await runBridge(emu, {
    env: { FAKE_CLI: kind === "claude-code" ? "claude" : "codex", FAKE_SCRIPT: script, FAKE_ARGV_FILE: argvFile, ...extra.env },
    base: {
      agent: {
        kind,
        command: [process.execPath, FAKE],
        passEnv: ["FAKE_CLI", "FAKE_SCRIPT", "FAKE_ARGV_FILE", ...Object.keys(extra.env ?? {})],
        killGraceSeconds: 1,
        isolation: { mode: isolation, readWrite: [seenDir] },
      },
    },
  });
  await b.daemon.done;
  return { id, doc: await emu.show(id), seen: JSON.parse(readFileSync(argvFile, "utf8")) as { argv: string[]; cwd: string; env: string[] }, bridge: b };
}

const reasonOf = (doc: Awaited<ReturnType<Emu["show"]>>) => String(doc.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");

describe.each(["claude-code", "codex"] as const)("%s adapter", (kind) => {
  it.each(["none", "auto"] as const)("heartbeats and completes through the MCP task tools (isolation %s)", async (isolation) => {
    const { doc, seen } = await run(kind, "complete", isolation);
    const jailed = isolation === "auto" && BWRAP;
    expect(doc.task.status).toBe("done");
    expect(doc.runs.at(-1)?.summary).toBe(`Finished via ${kind === "claude-code" ? "claude" : "codex"}`);
    expect(doc.runs.at(-1)?.metadata).toMatchObject({ items: 2, changed_files: ["result.txt"], bridge: { agent: kind } });
    expect(doc.events.filter((e) => e.kind === "heartbeat").map((e) => e.payload?.note)).toContain("reading the task");
    expect(seen.env).not.toContain("HERMES_HOME");
    if (kind === "claude-code") {
      // the prompt is a stream-json user message on stdin, never an argv element
      expect(seen.argv.slice(0, 8)).toEqual([
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
        "--replay-user-messages",
        "--mcp-config",
      ]);
      expect(seen.argv).toEqual(
        expect.arrayContaining([
          "--strict-mcp-config",
          "--allowedTools",
          "mcp__task",
          "--permission-mode",
          "acceptEdits",
          "--max-turns",
          "200",
          "--setting-sources",
          "user",
          "--append-system-prompt",
        ]),
      );
      expect(seen.env).toEqual(expect.arrayContaining(["MCP_CONNECTION_NONBLOCKING", "CLAUDE_CONFIG_DIR", "TZ"]));
    } else {
      expect(seen.argv.slice(0, 3)).toEqual(["exec", "-C", seen.cwd]);
      expect(seen.argv.slice(-2)).toEqual(["--", "-"]); // the prompt is read from stdin
      expect(seen.argv).toEqual(
        expect.arrayContaining([
          "--json",
          "--skip-git-repo-check",
          "-s",
          // in the bridge's jail, Codex's own sandbox (a second user namespace) cannot start: the jail is the sandbox
          jailed ? "danger-full-access" : "workspace-write",
          'mcp_servers.task.default_tools_approval_mode="approve"',
          "mcp_servers.task.required=true",
        ]),
      );
      expect(seen.env).toContain("CODEX_HOME");
    }
  });

  it("a bad block template is answered with the missing field, the good one blocks", async () => {
    const { doc } = await run(kind, "block-bad-then-good");
    const r = reasonOf(doc);
    expect(hasAllFields(r)).toBe(true);
    expect(r).toMatch(/first try said: .*next_action is required/);
  });

  it("an auth failure blocks as auth missing and pauses the seat", async () => {
    const { doc, bridge } = await run(kind, "auth");
    expect(reasonOf(doc)).toMatch(/^cause: auth missing$/m);
    expect(bridge.daemon.status().seat.paused).toBe(true);
  });

  it("a subscription limit hands the task back to the lane with the reset time, and pauses the seat", async () => {
    const { doc, bridge } = await run(kind, "limit");
    expect(doc.task.status).toBe("ready");
    expect(String(doc.events.findLast((e) => e.kind === "reclaimed")?.payload?.reason)).toMatch(/usage limit of seat test-seat \(\w+\) until 20\d\d-/);
    expect(doc.comments.at(-1)?.body).toMatch(/this seat hit its usage limit .* until 20\d\d-/);
    expect(bridge.daemon.status().seat.pausedUntil).not.toBeNull();
  });
});

describe("a login the run left behind", () => {
  const login = { claudeAiOauth: { accessToken: "SEAT-OWN", refreshToken: "r-SEAT-OWN", expiresAt: Date.now() + 600_000, scopes: ["user:inference"] } };
  const seatLogin = () => join(emu.dir, "state", "claude", ".credentials.json");

  it("a refresh that works (one request of the bridge's own) replaces the seat's, and the old one is kept aside", async () => {
    const { doc } = await run("claude-code", "refresh", "auto", { env: { FAKE_TOKEN: "REFRESHED-GOOD" }, login });
    expect(doc.task.status).toBe("done");
    expect(JSON.parse(readFileSync(seatLogin(), "utf8")).claudeAiOauth.accessToken).toBe("REFRESHED-GOOD");
    expect(JSON.parse(readFileSync(`${seatLogin()}.prev`, "utf8")).claudeAiOauth.accessToken).toBe("SEAT-OWN");
  });

  it("a token the agent planted, which the API does not take, never becomes the seat's login", async () => {
    const { doc, bridge } = await run("claude-code", "refresh", "auto", { env: { FAKE_TOKEN: "ATTACKER-PLANTED" }, login });
    expect(doc.task.status).toBe("done");
    expect(JSON.parse(readFileSync(seatLogin(), "utf8")).claudeAiOauth.accessToken).toBe("SEAT-OWN");
    expect(existsSync(`${seatLogin()}.prev`)).toBe(false);
    expect(bridge.daemon.status().seat.paused).toBe(false);
  });
});
