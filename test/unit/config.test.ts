// Config: defaults, precedence, strict keys with did-you-mean, YAML scalar forms, and every setting
// that depends on the TTL following the TTL the user chose (derived values, explicit conflicts named
// by how they were set, a minimum TTL, per-task TTLs from a max runtime).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { splitCommand } from "../../src/config/command.js";
import { loadConfig } from "../../src/agents/kinds.js";
import { timingFor, ttlForTask } from "../../src/config/timing.js";
import { settingsTable } from "../../src/observe/settings.js";
import { ConfigError } from "../../src/errors/index.js";
import { scratchDir } from "../helpers/tmp.js";

const file = (yaml: string) => {
  const f = join(scratchDir("hkb-cfg-"), "config.yaml");
  writeFileSync(f, yaml);
  return f;
};
const minimal = "boards: [bridge]\nassignee: claude-seat\nagent: {kind: command, command: [echo]}\n";

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error("no ConfigError");
}

describe("config", () => {
  it("applies defaults; TTL-dependent values are left to derivation", () => {
    const c = loadConfig({ file: file(minimal) });
    expect(c.claim).toEqual({ ttlSeconds: 900, maxTtlSeconds: 14400 });
    expect(c.heartbeat.intervalSeconds).toBeUndefined();
    expect(timingFor(c, 900)).toEqual({ ttlSeconds: 900, safetySeconds: 60, heartbeatSeconds: 120, wrapUpSeconds: 60, runSeconds: 840 });
    expect(c.hermes.command).toEqual(["hermes"]);
    expect(c.author).toBe("claude-seat");
    expect(c.concurrency).toBe(1);
    expect(c.gate.bodyVerification).toBe(false);
    expect(c.agent.resume).toBe(true);
  });

  it("flags > env > file", () => {
    const c = loadConfig({
      file: file(`${minimal}concurrency: 2\n`),
      env: { HERMES_BRIDGE_CONCURRENCY: "3", HERMES_BRIDGE_HERMES: "ssh board-host 'hermes'" },
      flags: { concurrency: "4" },
    });
    expect(c.concurrency).toBe(4);
    expect(c.hermes.command).toEqual(["ssh", "board-host", "hermes"]);
  });

  it("names the key path of a bad value", () => {
    const err = errorOf(() => loadConfig({ file: file(`${minimal}claim: {ttlSeconds: abc}\n`) }));
    expect(err.issues.map((i) => i.path)).toContain("claim.ttlSeconds");
  });

  it("rejects unknown keys with a did-you-mean, at any depth", () => {
    const err = errorOf(() => loadConfig({ file: file(`${minimal}concurency: 4\nclaim: {ttlSecond: 60}\n`) }));
    expect(err.issues).toEqual(
      expect.arrayContaining([
        { path: "concurency", message: "unknown key — did you mean 'concurrency'?" },
        { path: "claim.ttlSecond", message: "unknown key — did you mean 'ttlSeconds'?" },
      ]),
    );
    const agent = errorOf(() => loadConfig({ file: file("boards: [b]\nassignee: s\nagent: {kind: command, command: [x], passenv: [A]}\n") }));
    expect(agent.issues).toEqual([{ path: "agent.passenv", message: "unknown key — did you mean 'passEnv'?" }]);
  });

  it("accepts in YAML the scalar forms the flags accept", () => {
    const c = loadConfig({
      file: file('boards: b1\nassignee: s\nhermes: {command: "python3 /opt/hermes/hermes"}\nagent: {kind: command, command: "node agent.mjs --fast"}\n'),
    });
    expect(c.boards).toEqual(["b1"]);
    expect(c.hermes.command).toEqual(["python3", "/opt/hermes/hermes"]);
    expect(c.agent.kind === "command" && c.agent.command).toEqual(["node", "agent.mjs", "--fast"]);
  });

  it("a Hermes profile is no assignee", () => {
    expect(() => loadConfig({ file: file(minimal), flags: { assignee: "default" } })).toThrow(/assignee: 'default' is a Hermes profile/);
  });

  it("a webhook secret that is named but not set is an error, not an unsigned alert", () => {
    const yaml = `${minimal}webhook: {url: "http://127.0.0.1:9/x", secretEnv: HOOK_SECRET}\n`;
    expect(() => loadConfig({ file: file(yaml), env: {} })).toThrow(/webhook.secretEnv: names HOOK_SECRET, which is not set/);
    expect(loadConfig({ file: file(yaml), env: { HOOK_SECRET: "x".repeat(16) } }).webhook.secretEnv).toBe("HOOK_SECRET");
  });
});

describe("settings that depend on the TTL", () => {
  it("--ttl 60 alone works: safety, heartbeat and wrap-up follow it", () => {
    const c = loadConfig({ file: file(minimal), flags: { ttl: "60" } });
    expect(timingFor(c, 60)).toEqual({ ttlSeconds: 60, safetySeconds: 15, heartbeatSeconds: 15, wrapUpSeconds: 7.5, runSeconds: 45 });
  });

  it("--ttl 120 alone works", () => {
    const c = loadConfig({ file: file(minimal), flags: { ttl: "120" } });
    expect(timingFor(c, 120)).toMatchObject({ safetySeconds: 30, heartbeatSeconds: 30, wrapUpSeconds: 15, runSeconds: 90 });
  });

  it("a task with --max-runtime 2h gets a TTL of 2h + safety, capped by claim.maxTtlSeconds", () => {
    const c = loadConfig({ file: file(minimal) });
    expect(ttlForTask(c, 7200)).toBe(7260);
    expect(timingFor(c, 7260)).toMatchObject({ runSeconds: 7200, heartbeatSeconds: 120, safetySeconds: 60 });
    expect(ttlForTask(c, 10 * 3600)).toBe(4 * 3600);
    expect(ttlForTask(c, null)).toBe(900);
    expect(ttlForTask(c, 20)).toBe(30);
    const capped = loadConfig({ file: file(`${minimal}claim: {maxTtlSeconds: 3600}\n`) });
    expect(ttlForTask(capped, 7200)).toBe(3600);
  });

  it("an explicit value that conflicts is named as the user set it: flag, env variable, file key", () => {
    const flag = errorOf(() => loadConfig({ file: file(minimal), flags: { ttl: "120", "heartbeat-interval": "120" } }));
    expect(flag.issues).toEqual([{ path: "heartbeat.intervalSeconds", message: "--heartbeat-interval 120 is more than a quarter of --ttl 120" }]);
    const env = errorOf(() => loadConfig({ file: file(minimal), env: { HERMES_BRIDGE_TTL: "100", HERMES_BRIDGE_HEARTBEAT_INTERVAL: "50" } }));
    expect(env.issues).toEqual([
      { path: "heartbeat.intervalSeconds", message: "HERMES_BRIDGE_HEARTBEAT_INTERVAL=50 is more than a quarter of HERMES_BRIDGE_TTL=100" },
    ]);
    const key = errorOf(() => loadConfig({ file: file(`${minimal}claim: {ttlSeconds: 60, safetySeconds: 58}\n`) }));
    expect(key.issues).toEqual([
      { path: "claim.safetySeconds", message: "claim.safetySeconds in config.yaml leaves less than 5 s of claim.ttlSeconds in config.yaml for the run" },
    ]);
  });

  it("a TTL too short to work is refused with the minimum and why", () => {
    const err = errorOf(() => loadConfig({ file: file(minimal), flags: { ttl: "20" } }));
    expect(err.issues[0]?.path).toBe("claim.ttlSeconds");
    expect(err.issues[0]?.message).toMatch(
      /^--ttl 20 is below the minimum of 30 s: a run must claim, heartbeat every ttl\/4 and close before the claim expires/,
    );
  });

  it("doctor's table says where each effective value came from", () => {
    const c = loadConfig({ file: file(`${minimal}concurrency: 2\n`), env: { HERMES_BRIDGE_TTL: "200" }, flags: { "heartbeat-interval": "40" } });
    const rows = Object.fromEntries(settingsTable(c).map((s) => [s.key, [s.value, s.source]]));
    expect(rows["claim.ttlSeconds"]).toEqual(["200", "HERMES_BRIDGE_TTL=200"]);
    expect(rows["heartbeat.intervalSeconds"]).toEqual(["40", "--heartbeat-interval 40"]);
    expect(rows["claim.safetySeconds"]).toEqual(["50", "derived from the TTL"]);
    expect(rows.concurrency).toEqual(["2", "concurrency in config.yaml"]);
    expect(rows["agent.stallSeconds"]).toEqual(["600", "default"]);
  });
});

describe("command strings (flags, env)", () => {
  it("split as a POSIX shell would, without expansion", () => {
    expect(splitCommand(`python3 '/opt/my hermes/hermes' --x "a \\"b\\" c\\d" e\\ f $HOME`)).toEqual([
      "python3",
      "/opt/my hermes/hermes",
      "--x",
      'a "b" c\\d',
      "e f",
      "$HOME",
    ]);
    expect(splitCommand(`ssh host ''`)).toEqual(["ssh", "host", ""]);
  });

  it("an open quote is an error naming the command", () => {
    expect(() => splitCommand(`python3 'hermes`)).toThrow(/unterminated quote in command: python3 'hermes/);
  });
});
