import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { ConfigError } from "../../src/errors/index.js";

const file = (yaml: string) => {
  const f = join(mkdtempSync(join(tmpdir(), "hkb-cfg-")), "c.yaml");
  writeFileSync(f, yaml);
  return f;
};
const minimal = "boards: [bridge]\nassignee: claude-seat\nagent: {kind: command, command: [echo]}\n";

describe("config", () => {
  it("applies defaults", () => {
    const c = loadConfig({ file: file(minimal) });
    expect(c.claim).toEqual({ ttlSeconds: 900, safetySeconds: 60 });
    expect(c.heartbeat.intervalSeconds).toBe(120);
    expect(c.hermes.command).toEqual(["hermes"]);
    expect(c.author).toBe("claude-seat");
    expect(c.concurrency).toBe(1);
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
    const err = (() => {
      try {
        loadConfig({ file: file(`${minimal}heartbeat: {intervalSeconds: 300}\nclaim: {ttlSeconds: abc}\n`) });
      } catch (e) {
        return e as ConfigError;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err?.issues.map((i) => i.path)).toContain("claim.ttlSeconds");
  });
  it("rejects a heartbeat above ttl/4 and a Hermes profile as assignee", () => {
    expect(() => loadConfig({ file: file(minimal), flags: { "heartbeat-interval": "300" } })).toThrow(/heartbeat.intervalSeconds: must be at most/);
    expect(() => loadConfig({ file: file(minimal), flags: { assignee: "default" } })).toThrow(/assignee: 'default' is a Hermes profile/);
  });
});
