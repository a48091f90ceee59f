// doctor on a healthy and a broken setup; the example config loads as is; `skill` prints SKILL.md.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runProcess } from "../../src/process/runner.js";
import { loadConfig } from "../../src/agents/kinds.js";
import { AGENT } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";
import { WebhookServer } from "../helpers/webhook.js";
import { probeBwrap } from "../../src/jail/policy.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;

let emu: Emu;
let hook: WebhookServer | undefined;
afterEach(async () => {
  emu?.cleanup();
  await hook?.close();
  hook = undefined;
});

const cli = (args: string[]) =>
  runProcess({ argv: [process.execPath, CLI_BIN, ...args], env: { PATH: process.env.PATH ?? "", HOME: emu?.dir ?? "/tmp" }, timeoutMs: 60_000 });

describe("doctor", () => {
  it("passes on a healthy setup and delivers a test alert", async () => {
    emu = await Emu.create();
    hook = await WebhookServer.start();
    const cfg = join(emu.dir, "ok.yaml");
    writeFileSync(
      cfg,
      `boards: [bridge]\nassignee: doc-seat\nhermes: {command: ["${process.execPath}", "${emu.command[1]}"], home: "${emu.home}"}\nagent: {command: ["${process.execPath}", "${AGENT}"]}\nstateDir: "${join(emu.dir, "st")}"\nwebhook: {url: "${hook.url}"}\n`,
    );
    const r = await cli(["doctor", "--config", cfg, "--send-test-alert"]);
    expect(r.stdout).toMatch(/^hermes command\s+ok\s+.*block --kind: needs_input\|capability\|transient\|dependency; attach: yes/m);
    expect(r.stdout).toMatch(/^state dir\s+ok/m);
    expect(r.stdout).toMatch(/^hermes share\s+ok\s+seat: this seat runs its own call server and watch/m);
    expect(r.stdout).toMatch(/^tool sockets\s+ok/m);
    // where the CLI's execute-only images go, and what they take (none without a jail)
    expect(r.stdout).toMatch(/^images\s+ok\s+(the CLI runs from execute-only copies in \/\S+ \(agent\.isolation\.imageCache.*node \d+ MiB|not used)/m);
    expect(r.stdout).toMatch(/^workspace bridge\s+ok\s+board: /m);
    expect(r.stdout).toMatch(/^claim.ttlSeconds\s+900\s+default$/m);
    expect(r.stdout).toMatch(/^heartbeat.intervalSeconds\s+120\s+derived from the TTL$/m);
    expect(r.stdout).toMatch(/^board bridge\s+ok/m);
    // The emulator plays 0.20.0: a warning naming the advisory, and no failure.
    expect(r.stdout).toMatch(/^hermes version\s+warn\s+Hermes 0\.20\.0 is below 0\.21\.6: it has Tenable TRA-2026-65 /m);
    expect(r.stdout).toMatch(/^webhook\s+ok\s+test alert delivered/m);
    expect(r.exitCode).toBe(0);
    expect(hook.received[0]?.json.event).toBe("test");
  });

  it("on Hermes 0.21.6 the version row passes; a board whose database is corrupt fails naming its repair", async () => {
    emu = await Emu.create("bridge", { env: { HERMES_EMULATOR_COMPAT: "0.21.6" } });
    const cfg = join(emu.dir, "0216.yaml");
    writeFileSync(
      cfg,
      `boards: [bridge]\nassignee: doc-seat\nhermes: {command: ["${process.execPath}", "${emu.command[1]}"], home: "${emu.home}", env: {HERMES_EMULATOR_COMPAT: "0.21.6"}}\nagent: {command: ["${process.execPath}", "${AGENT}"]}\nstateDir: "${join(emu.dir, "st")}"\n`,
    );
    writeFileSync(join(emu.home, "kanban", "boards", "bridge", "kanban.db.emulator-corrupt"), "");
    const r = await cli(["doctor", "--config", cfg]);
    expect(r.stdout).toMatch(/^hermes version\s+ok\s+Hermes 0\.21\.6 \(0\.21\.6 or later: Tenable TRA-2026-65 fixed\)$/m);
    expect(r.stdout).toMatch(
      /^board bridge\s+FAIL\s+board database corrupt: the board's database refuses to open \(sqlite refused to open file: database disk image is malformed\)/m,
    );
    expect(r.stdout).toMatch(/^\s+fix: run `hermes kanban --board bridge repair` \(Hermes kept a copy: \S+\.bak\); a running seat has paused this board/m);
    expect(r.exitCode).toBe(1);
  });

  it("hermes.share: host says where the hub's socket is; a share dir others can enter refuses the seat, naming it", async () => {
    emu = await Emu.create();
    const base = `boards: [bridge]\nassignee: doc-seat\nagent: {command: ["${process.execPath}", "${AGENT}"]}\nstateDir: "${join(emu.dir, "st")}"\n`;
    const hermes = (dir: string) =>
      `hermes: {command: ["${process.execPath}", "${emu.command[1]}"], home: "${emu.home}", callServer: on, share: host, shareDir: "${dir}"}\n`;
    const cfg = join(emu.dir, "share.yaml");
    writeFileSync(cfg, base + hermes(join(emu.dir, "hubs")));
    const r = await cli(["doctor", "--config", cfg]);
    expect(r.stdout).toMatch(new RegExp(`^hermes share\\s+ok\\s+host: .*the hub's socket in ${join(emu.dir, "hubs")}`, "m"));
    // nothing to share: the same verdict as the seat's log (board/server-launch.ts noShareReason)
    writeFileSync(cfg, base + hermes(join(emu.dir, "hubs")).replace("callServer: on", "callServer: auto"));
    const auto = await cli(["doctor", "--config", cfg]);
    expect(auto.stdout).toMatch(/^hermes share\s+FAIL\s+host, but the hermes command is not a Python launcher/m);
    writeFileSync(cfg, base + hermes(join(emu.dir, "hubs")).replace("callServer: on", "callServer: off"));
    expect((await cli(["doctor", "--config", cfg])).stdout).toMatch(/^hermes share\s+FAIL\s+host, but callServer is off/m);
    const open = join(emu.dir, "open");
    mkdirSync(open, { mode: 0o777 });
    chmodSync(open, 0o777);
    writeFileSync(cfg, base + hermes(open));
    const bad = await cli(["doctor", "--config", cfg]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/hermes\.shareDir: .*open can be entered by others \(mode 777\): make it 0700/);
  });

  it("fails with a fix for each broken part", async () => {
    emu = await Emu.create();
    mkdirSync(join(emu.home, "profiles", "worker"), { recursive: true });
    const cfg = join(emu.dir, "bad.yaml");
    writeFileSync(
      cfg,
      `boards: [missing-board]\nassignee: worker\nhermes: {command: ["${process.execPath}", "${emu.command[1]}"], home: "${emu.home}"}\nagent: {command: ["no-such-agent-binary"]}\nstateDir: "${join(emu.dir, "st")}"\n`,
    );
    const r = await cli(["doctor", "--config", cfg]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^board missing-board\s+FAIL/m);
    expect(r.stdout).toContain("fix: hermes kanban boards create missing-board");
    expect(r.stdout).toMatch(/^assignee\s+FAIL\s+'worker' is a Hermes profile/m);
    expect(r.stdout).toMatch(/^agent\s+FAIL\s+no-such-agent-binary not found/m);
  });

  it.skipIf(!BWRAP)("fails an image cache that cannot hold the CLI's images, naming the key", async () => {
    emu = await Emu.create();
    const file = join(emu.dir, "a-file");
    writeFileSync(file, "x");
    const cfg = join(emu.dir, "cache.yaml");
    writeFileSync(
      cfg,
      `boards: [bridge]\nassignee: doc-seat\nhermes: {command: ["${process.execPath}", "${emu.command[1]}"], home: "${emu.home}"}\nagent: {command: ["${process.execPath}", "${AGENT}"], isolation: {imageCache: "${file}"}}\nstateDir: "${join(emu.dir, "st")}"\n`,
    );
    const r = await cli(["doctor", "--config", cfg]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^images\s+FAIL\s+.*a-file cannot hold the CLI's execute-only images/m);
    expect(r.stdout).toContain("fix: set agent.isolation.imageCache to an absolute folder");
  });

  it("reports an invalid config with its key paths", async () => {
    emu = await Emu.create();
    const cfg = join(emu.dir, "invalid.yaml");
    writeFileSync(cfg, "boards: [Bad Slug]\nassignee: x\nagent: {command: []}\n");
    const r = await cli(["doctor", "--config", cfg]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^config\s+FAIL\s+.*boards\.0: a board slug.*agent\.command: at least the program name/m);
  });

  it("a seat not logged in is told the way its config names first: the API key for a seat that passes one", async () => {
    emu = await Emu.create();
    const claude = join(emu.dir, "claude");
    // what the real `claude auth status` prints when a seat is not logged in
    writeFileSync(claude, '#!/bin/sh\necho \'{"loggedIn": false, "authMethod": "none", "apiProvider": "firstParty"}\'; exit 1\n');
    chmodSync(claude, 0o755);
    const seat = (name: string, agent: string) => {
      const cfg = join(emu.dir, `${name}.yaml`);
      writeFileSync(
        cfg,
        `boards: [bridge]\nassignee: ${name}\nhermes: {command: ["${process.execPath}", "${emu.command[1]}"], home: "${emu.home}"}\nagent: {kind: claude-code, command: ["${claude}"], isolation: {mode: none}${agent}}\nstateDir: "${join(emu.dir, name)}"\n`,
      );
      return cfg;
    };
    const keyed = await cli(["doctor", "--config", seat("keyed", ", passEnv: [ANTHROPIC_API_KEY]")]);
    expect(keyed.stdout).toMatch(/^agent\s+FAIL\s+.*\n\s+fix: log this seat in — an Anthropic API key: ANTHROPIC_API_KEY=<key> in the seat's environment/m);
    const plan = await cli(["doctor", "--config", seat("plan", "")]);
    expect(plan.stdout).toMatch(/fix: log this seat in — a Claude subscription \(a browser sign-in\)/);
  });
});

describe("operator material", () => {
  it("config.example.yaml loads as is", () => {
    const c = loadConfig({ file: "config.example.yaml" });
    expect(c.claim.ttlSeconds).toBe(900);
    expect(c.assignee).toBe("claude-seat-1");
  });
  it("`skill` prints SKILL.md", async () => {
    const r = await cli(["skill"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(readFileSync("skills/SKILL.md", "utf8"));
  });
});
