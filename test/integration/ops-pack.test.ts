// The operations pack (deploy/): every metric the alert rules and the dashboard use exists on a live
// daemon's /metrics; the rules pass `promtool check rules` and their unit tests (skipped where promtool
// is not installed unless HKB_REQUIRE_PROMTOOL is set, as CI does); the seat configs load; the
// Dockerfile and compose file have the shape docs/fleet.md promises (npm run test:deploy runs them for real).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../src/agents/kinds.js";
import { HttpServer } from "../../src/observe/http.js";
import { defaultImageCache } from "../../src/jail/image-cache.js";
import { runBridge } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";

const DEPLOY = "deploy";
const RULES = join(DEPLOY, "prometheus", "hermes-bridge.rules.yml");
const DASHBOARD = join(DEPLOY, "grafana", "hermes-bridge.json");
const promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].find((p) => existsSync(p));

let emu: Emu | undefined;
let http: HttpServer | undefined;
afterEach(async () => {
  await http?.close();
  emu?.cleanup();
});

/** The metric names an expression uses (histogram series names map to their metric). */
const namesIn = (text: string) => new Set([...text.matchAll(/\bhkb_[a-z0-9_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, "")));

describe("operations pack", () => {
  it("every metric the rules and the dashboard use is on a live daemon's /metrics", async () => {
    emu = await Emu.create();
    const b = await runBridge(emu, { once: false, base: { http: { port: 0 }, discovery: { watch: false, sweepSeconds: 3600 } } });
    try {
      if (!b.built.metrics) throw new Error("no metrics with http.port set");
      http = new HttpServer(b.daemon, b.built.metrics);
      const port = await http.listen(0);
      const body = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const live = new Set([...body.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
      const rules = readFileSync(RULES, "utf8");
      const exprs = (parse(rules) as { groups: { rules: { expr: string }[] }[] }).groups.flatMap((g) => g.rules.map((r) => r.expr)).join("\n");
      const dashboard = JSON.parse(readFileSync(DASHBOARD, "utf8")) as { panels: { targets: { expr: string }[] }[] };
      const used = namesIn(`${exprs}\n${dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)).join("\n")}`);
      expect(used.size).toBeGreaterThan(15);
      expect([...used].filter((n) => !live.has(n))).toEqual([]);
    } finally {
      await b.daemon.kill();
    }
  });

  it.skipIf(!promtool && !process.env.HKB_REQUIRE_PROMTOOL)("promtool: the rules check and their unit tests pass", () => {
    const tool = promtool ?? "promtool";
    expect(execFileSync(tool, ["check", "rules", RULES], { encoding: "utf8" })).toContain("SUCCESS: 11 rules found");
    expect(execFileSync(tool, ["test", "rules", "hermes-bridge.rules.test.yml"], { cwd: join(DEPLOY, "prometheus"), encoding: "utf8" })).toContain("SUCCESS");
  });

  it("the seat configs load; the image and the compose file have the promised shape", () => {
    const seats = readdirSync(join(DEPLOY, "seats")).filter((f) => f.endsWith(".yaml"));
    expect(seats.sort()).toEqual(["claude-1.yaml", "claude-2.yaml", "codex-1.yaml"]);
    const lanes = seats.map((f) =>
      loadConfig({ file: join(DEPLOY, "seats", f), env: { HKB_WEBHOOK_SECRET: "s", HKB_HTTP_TOKEN: "t" }, flags: { "state-dir": "/var/lib/hermes-bridge" } }),
    );
    // Reachable from the other containers, so guarded by a token; the agent jailed, its secrets not in the YAML.
    for (const c of lanes) expect(c.http).toMatchObject({ host: "0.0.0.0", tokenEnv: "HKB_HTTP_TOKEN", allowedHosts: [c.seat.name] });
    for (const c of lanes) expect(c.agent.isolation.mode).toBe("bwrap");
    expect(lanes.map((c) => c.assignee)).toEqual(["claude", "claude", "codex"]); // a pool of two, one more lane
    expect(new Set(lanes.map((c) => c.seat.name)).size).toBe(3);
    for (const c of lanes) expect(c.http.port).toBe(9464);

    const docker = readFileSync(join(DEPLOY, "Dockerfile"), "utf8");
    expect(docker).toMatch(/^FROM node:20-\S*slim$/m);
    expect(docker).toMatch(/^USER (?!root)\S+$/m);
    expect(docker).toMatch(/^HEALTHCHECK [\s\S]*\/healthz/m);
    expect(docker).toMatch(/^VOLUME \["\/var\/lib\/hermes-bridge"\]$/m);
    expect(docker).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--", "hermes-bridge"\]$/m);
    expect(docker).toMatch(/apt-get install [^\n]*\bbubblewrap\b/);

    const compose = parse(readFileSync(join(DEPLOY, "compose.yaml"), "utf8"), { merge: true }) as {
      services: Record<
        string,
        { volumes: string[]; stop_grace_period: string; image: string; env_file: string[]; security_opt: string[]; secrets: string[]; privileged: boolean }
      >;
    };
    const services = Object.entries(compose.services);
    expect(services.map(([n]) => n)).toEqual(["claude-1", "claude-2", "codex-1"]);
    const stateVolumes = services.map(([, s]) => s.volumes.find((v) => v.endsWith(":/var/lib/hermes-bridge")));
    expect(new Set(stateVolumes).size).toBe(3);
    for (const [name, s] of services) {
      expect(s.volumes).toContain(`./seats/${name}.yaml:/etc/hermes-bridge/seat.yaml:ro`);
      expect(Number.parseInt(s.stop_grace_period, 10)).toBeGreaterThan(30);
      // each seat its own secrets file; no ssh key in a HOME (it is a compose secret); user namespaces for the jail
      expect(s.env_file).toEqual([`seats/${name}.env`]);
      expect(s.volumes.some((v) => /\.ssh|\/home\//.test(v))).toBe(false);
      expect(s.secrets).toContain("board_ssh_key");
      // the jail: privileged is the one setting compose can pass that lets bubblewrap mount /proc; nothing gains a capability
      expect(s.privileged).toBe(true);
      expect(s.security_opt).toEqual(["no-new-privileges:true"]);
    }
  });

  it("the systemd unit keeps the seat's state under StateDirectory= and tells the bridge so", () => {
    const unit = readFileSync(join(DEPLOY, "hermes-bridge@.service"), "utf8");
    expect(unit).toMatch(/^StateDirectory=hermes-bridge\/%i$/m);
    expect(unit).toMatch(/^StateDirectoryMode=0700$/m);
    // %S is /var/lib for a system unit: the same dir StateDirectory= makes
    const env = /^Environment=HERMES_BRIDGE_STATE_DIR=%S\/hermes-bridge\/%i$/m.exec(unit);
    expect(env).not.toBeNull();
    // the CLIs' execute-only images: one cache for the host's seats, systemd's (%C is /var/cache)
    expect(unit).toMatch(/^CacheDirectory=hermes-bridge$/m);
    expect(unit).toMatch(/^Environment=XDG_CACHE_HOME=%C$/m);
    expect(defaultImageCache({ XDG_CACHE_HOME: "/var/cache" }, false)).toBe("/var/cache/hermes-bridge/images");
    const c = loadConfig({
      file: join(DEPLOY, "seats", "codex-1.yaml"),
      env: { HKB_WEBHOOK_SECRET: "s", HKB_HTTP_TOKEN: "t", HERMES_BRIDGE_STATE_DIR: "/var/lib/hermes-bridge/codex-1" },
    });
    expect(c.stateDir).toBe("/var/lib/hermes-bridge/codex-1");
  });
});
