// The jail's other doors, rows 7–12 (rows 1–6: jail-doors.test.ts):
//   7. two seats' gate commands in one workspace — one run's end never kills the other's check;
//   8. `skill install --dir` into a CLI home where a link was planted — never followed;
//   9. a descriptor the bridge inherited (a wrapper's `exec 20<secrets.env`) — never in a jail;
//  10. a memory hog, a fork bomb, a /tmp filler — each ends blocked naming its cap; the daemon and other runs are fine;
//  11. `auto` that falls back — loud everywhere (card, block, status, metric, alert, doctor);
//  12. the forbidden roots cover the config, the token file, ~/.config.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { installSkill } from "../../src/cli/skill.js";
import { ConfigError, ExitError } from "../../src/errors/index.js";
import { probeBwrap } from "../../src/jail/policy.js";
import { runProcess } from "../../src/process/runner.js";
import { AGENT, runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { ROOT, blockedWhy } from "../helpers/jail-doors.js";
import { untilHost } from "../helpers/steering.js";
import { WebhookServer } from "../helpers/webhook.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok;
const CLI = resolve("dist/cli/main.js");

let emu: Emu | undefined;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  emu?.cleanup();
  emu = undefined;
});

const jailed = (extra: Record<string, unknown> = {}) => ({
  kind: "command",
  command: [process.execPath, AGENT],
  passEnv: ["FIXTURE_PROBE"],
  isolation: "bwrap",
  killGraceSeconds: 1,
  ...extra,
});

describe.skipIf(!BWRAP && !process.env.HKB_REQUIRE_BWRAP)("the jail's other doors (7–12)", () => {
  it("row 7: two seats' gate commands in one workspace — the first to end kills nothing of the other's", async () => {
    emu = await Emu.create();
    const ws = join(emu.dir, "projects", "shared");
    mkdirSync(join(ws, ".g"), { recursive: true });
    // each gate check says it started, then waits for the test's go: both run at once, one ends first
    // (each jail numbers its own pids: $$ is 2 in both — mktemp names them apart)
    const gate =
      "mkdir -p .g && mktemp .g/started-XXXXXX >/dev/null && n=0; while [ ! -f .g/go ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n+1)); done; [ -f .g/go ]";
    const ids = [
      await emu.createTask("one", { assignee: "lane-a", body: "MODE:complete", workspace: `dir:${ws}` }),
      await emu.createTask("two", { assignee: "lane-b", body: "MODE:complete", workspace: `dir:${ws}` }),
    ];
    const seat = (lane: string) =>
      runBridge(emu as Emu, {
        stateName: `state-${lane}`,
        seat: lane,
        base: {
          assignee: lane,
          agent: jailed(),
          gate: { commands: [gate], allowDirty: true, timeoutSeconds: 60 },
          workspace: { allowedRoots: [join(emu?.dir ?? "", "projects")] },
        },
      });
    const [a, b] = await Promise.all([seat("lane-a"), seat("lane-b")]);
    await untilHost(
      "both gate checks running",
      async () => {
        return readdirSync(join(ws, ".g")).filter((f) => f.startsWith("started-")).length >= 2;
      },
      60_000,
    );
    writeFileSync(join(ws, ".g", "go"), "");
    await Promise.all([a.daemon.done, b.daemon.done]);
    for (const id of ids) {
      const d = await emu.show(id);
      expect(d.task.status, blockedWhy(d)).toBe("done");
    }
  });

  it("row 8: skill install into a CLI home where a link was planted writes the file itself, never where the link leads", () => {
    const dir = join(homedir(), `.hkb-test-skill-${process.pid}`);
    const victim = join(dir, "authorized_keys");
    try {
      mkdirSync(join(dir, "home", "skills", "hermes-kanban-bridge"), { recursive: true });
      writeFileSync(victim, "ssh-ed25519 AAAA operator\n");
      symlinkSync(victim, join(dir, "home", "skills", "hermes-kanban-bridge", "SKILL.md"));
      const [file] = installSkill({ targets: ["claude"], dir: join(dir, "home") }, {});
      expect(readFileSync(victim, "utf8")).toBe("ssh-ed25519 AAAA operator\n");
      expect(readFileSync(file ?? "", "utf8")).toMatch(/^---\nname: hermes-kanban-bridge/);
      // a folder on the way that is a link: refused, not followed
      mkdirSync(join(dir, "elsewhere"));
      mkdirSync(join(dir, "home2"));
      symlinkSync(join(dir, "elsewhere"), join(dir, "home2", "skills"));
      expect(() => installSkill({ targets: ["claude"], dir: join(dir, "home2") }, {})).toThrow(/is a symbolic link: not followed/);
      expect(existsSync(join(dir, "elsewhere", "hermes-kanban-bridge"))).toBe(false);
      // a seat's state (where each run's CLI home lives) is no target
      expect(() => installSkill({ targets: ["claude"], dir: join(dir, "seat", "runs"), stateDirs: [join(dir, "seat")] }, {})).toThrow(ExitError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("row 9: a descriptor the bridge inherited (a wrapper's secrets file) never reaches the agent; control: a plain child does get it", async () => {
    emu = await Emu.create();
    const secret = join(emu.dir, "secrets.env");
    writeFileSync(secret, "DEPLOY_TOKEN=inherited-secret-4471\n", { mode: 0o600 });
    const id = await emu.createTask("probe", { assignee: SEAT, body: "MODE:jail-probe" });
    const cfg = join(emu.dir, "seat.yaml");
    writeFileSync(
      cfg,
      JSON.stringify({
        boards: ["bridge"],
        assignee: SEAT,
        hermes: { command: emu.command, home: emu.home, callServer: "on" },
        stateDir: join(emu.dir, "state"),
        discovery: { watch: false },
        agent: jailed(),
      }),
    );
    // every descriptor the agent's shell holds, by name, and fd 20 read (a secrets file would be one of them)
    const probe = "ls -l /proc/$$/fd/ 2>&1 | grep -c secrets.env; cat /proc/self/fd/20 2>/dev/null </dev/null | grep -a inherited-secret || echo NO-SECRET";
    // like `exec 20<secrets.env; hermes-bridge run …`: the descriptor is inherited, without close-on-exec
    const wrapper = `exec 20<"${secret}"; exec "$@"`;
    const r = await runProcess({
      argv: ["/bin/bash", "-c", wrapper, "wrapper", process.execPath, CLI, "run", "--once", "--config", cfg],
      env: { PATH: process.env.PATH ?? "", HOME: emu.dir, FIXTURE_PROBE: probe },
      timeoutMs: 60_000,
    });
    const d = await emu.show(id);
    expect(d.task.status, `${blockedWhy(d)}\n${r.stderr.slice(-500)}\n${r.stdout.slice(-1500)}`).toBe("done");
    expect(d.runs.at(-1)?.summary).toContain("NO-SECRET");
    expect(d.runs.at(-1)?.summary).not.toContain("inherited-secret-4471");
    const control = await runProcess({
      argv: ["/bin/bash", "-c", `exec 20<"${secret}"; cat /proc/self/fd/20`],
      env: { PATH: process.env.PATH ?? "" },
      timeoutMs: 10_000,
    });
    expect(control.stdout).toContain("inherited-secret-4471");
  });

  it.skipIf(!ROOT && !process.env.HKB_REQUIRE_LIMITS)(
    "row 10: a memory hog, a fork bomb and a /tmp filler each end blocked naming their cap; a run beside them completes",
    async () => {
      emu = await Emu.create();
      const hog = "node -e 'const a=[]; for(;;) a.push(Buffer.alloc(16<<20, 1))'";
      const bomb = "while :; do sleep 60 & done";
      const filler = "dd if=/dev/zero of=/tmp/fill bs=1M count=64 2>&1; sleep 30";
      const tasks = [
        ["hog", hog],
        ["bomb", bomb],
        ["filler", filler],
      ] as const;
      const ids: Record<string, string> = {};
      for (const [name] of tasks) ids[name] = await emu.createTask(name, { assignee: SEAT, body: `MODE:jail-probe ${name}` });
      const fine = await emu.createTask("fine", { assignee: SEAT, body: "MODE:complete" });
      const script = `case "$(cat "$HERMES_BRIDGE_CONTEXT")" in *"MODE:jail-probe hog"*) ${hog};; *"MODE:jail-probe bomb"*) ${bomb};; *"MODE:jail-probe filler"*) ${filler};; esac`;
      const b = await runBridge(emu, {
        env: { FIXTURE_PROBE: script },
        base: {
          concurrency: 4,
          agent: jailed({ passEnv: ["FIXTURE_PROBE"], limits: { mode: "cgroup", memoryMiB: 128, pids: 64, tmpMiB: 16 } }),
        },
      });
      await b.daemon.done;
      expect((await emu.show(fine)).task.status).toBe("done");
      const want = { hog: /agent\.limits\.memoryMiB: 128 MiB/, bomb: /agent\.limits\.pids: 64/, filler: /agent\.limits\.tmpMiB: 16 MiB/ };
      for (const [name] of tasks) {
        const d = await emu.show(ids[name] ?? "");
        expect(d.task.status, `${name}: ${blockedWhy(d)}`).toBe("blocked");
        expect(blockedWhy(d)).toMatch(want[name]);
      }
      expect(b.daemon.status().seat).toBeDefined();
    },
    120_000,
  );

  it("row 11: auto without a working bubblewrap is loud everywhere: card, block, status, metric, one alert; a missing bwrap is named missing", async () => {
    emu = await Emu.create();
    const hook = await WebhookServer.start();
    closers.push(() => hook.close());
    const done = await emu.createTask("done", { assignee: SEAT, body: "MODE:complete" });
    const blocked = await emu.createTask("blocked", { assignee: SEAT, body: "MODE:block" });
    const b = await runBridge(emu, {
      base: {
        http: { port: 0 },
        webhook: { url: hook.url, retries: 0 },
        agent: { kind: "command", command: [process.execPath, AGENT], killGraceSeconds: 1, isolation: { mode: "auto", bwrap: "/nonexistent/bwrap" } },
      },
    });
    await b.daemon.done;
    const iso = b.daemon.status().seat.isolation;
    expect(iso?.mode).toBe(ROOT ? "user" : "none");
    expect(iso?.why).toMatch(/\/nonexistent\/bwrap is missing: bubblewrap is not installed/);
    expect((await emu.show(done)).runs.at(-1)?.metadata).toMatchObject({ bridge: { isolation: { mode: iso?.mode } } });
    expect(blockedWhy(await emu.show(blocked))).toMatch(/^isolation: (user|none) — the agent ran without a jail of its own/m);
    const metrics = await b.built.metrics?.registry.metrics();
    expect(metrics).toMatch(new RegExp(`hkb_agent_isolation\\{mode="${iso?.mode}"\\} 1`));
    await hook.waitFor(1);
    expect(hook.received.map((r) => r.json.event)).toEqual(["isolation_off"]);
  });

  it("row 12: the config file's folder, ~/.config and the token file are forbidden roots: refused as extras, naming the key", async () => {
    emu = await Emu.create();
    const secrets = join(emu.dir, "secrets");
    mkdirSync(secrets);
    const tokenFile = join(secrets, "http-token");
    writeFileSync(tokenFile, "t0ken\n", { mode: 0o600 });
    const start = (readOnly: string[], extra: Record<string, unknown> = {}) =>
      runBridge(emu as Emu, { base: { agent: jailed({ isolation: { mode: "bwrap", readOnly } }), ...extra } });
    await expect(start([join(homedir(), ".config")])).rejects.toThrow(
      /agent\.isolation\.readOnly\.0: .*\.config is inside .*\.config: an agent may never see it/,
    );
    await expect(start([secrets], { http: { tokenFile } })).rejects.toThrow(ConfigError);
    await expect(start([secrets], { http: { tokenFile } })).rejects.toThrow(/secrets contains .*http-token: an agent may never see it/);
  });
});
