// A seat as docs/deploy.md's systemd recipe sets it up: one state-dir default for `init` as root, the shipped
// unit (StateDirectory=) and the image; directories made above a seat's state dir by root are passable by the
// seat's user whatever the umask; `init --user` (as root) gives the seat to the unit's User= — its state dir and
// login home, a config root's and read by its group — and prints the login and doctor as that user.
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { defaultShareDir } from "../../src/board/hub-client.js";
import { defaultStateRoot } from "../../src/config/schema.js";
import { runProcess } from "../../src/process/runner.js";
import { ensureStateDir } from "../../src/state/dir.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";

const asRoot = process.getuid?.() === 0;
let emu: Emu | undefined;
afterEach(() => {
  emu?.cleanup();
  emu = undefined;
});

describe("one state-dir default for a seat run as a service", () => {
  it("root's default is the unit's StateDirectory= and the image's state volume", () => {
    const unit = readFileSync("deploy/hermes-bridge@.service", "utf8");
    // %S is /var/lib for a system unit
    const dir = /^Environment=HERMES_BRIDGE_STATE_DIR=%S\/(.+)\/%i$/m.exec(unit)?.[1];
    expect(dir).toBe("hermes-bridge");
    expect(unit).toMatch(new RegExp(`^StateDirectory=${dir}/%i$`, "m"));
    expect(defaultStateRoot(0)).toBe(`/var/lib/${dir}`);
    expect(readFileSync("deploy/Dockerfile", "utf8")).toMatch(new RegExp(`^ENV HERMES_BRIDGE_STATE_DIR=${defaultStateRoot(0)}$`, "m"));
    // any other user keeps its seats under its HOME
    expect(defaultStateRoot(1000)).toMatch(/\/\.local\/state\/hermes-kanban-bridge$/);
  });

  it.skipIf(!asRoot)("as root, the directories made above a seat's state dir are passable (0755) whatever the umask; the state dir is 0700", async () => {
    emu = await Emu.create();
    const dir = join(emu.dir, "var", "lib", "hermes-bridge", "s1");
    const old = process.umask(0o077);
    try {
      ensureStateDir(dir);
    } finally {
      process.umask(old);
    }
    expect(statSync(join(emu.dir, "var")).mode & 0o777).toBe(0o755);
    expect(statSync(join(emu.dir, "var", "lib", "hermes-bridge")).mode & 0o777).toBe(0o755);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });
});

describe("the shipped units", () => {
  const seat = readFileSync("deploy/hermes-bridge@.service", "utf8");
  const hubs = readFileSync("deploy/hermes-bridge-hubs.service", "utf8");
  const line = (unit: string, key: string) => unit.match(new RegExp(`^${key}=(.*)$`, "gm"))?.map((l) => l.slice(key.length + 1)) ?? [];

  it("the hub service runs as the seats' user with their share dir, and the seats start after it", () => {
    for (const key of ["User", "CacheDirectory", "CacheDirectoryMode"]) expect([key, line(hubs, key)]).toEqual([key, line(seat, key)]);
    expect(line(hubs, "Environment")).toEqual(["XDG_CACHE_HOME=%C"]);
    expect(line(seat, "Environment")).toContain("XDG_CACHE_HOME=%C");
    // %C is /var/cache for a system unit: the seats' default share dir, which the service serves by default too
    expect(defaultShareDir({ XDG_CACHE_HOME: "/var/cache", HOME: "/home/hermes-bridge" })).toBe("/var/cache/hermes-bridge/hubs");
    expect(line(hubs, "ExecStart")).toEqual(["/usr/bin/env hermes-bridge hubs"]);
    expect(line(hubs, "ExecStartPost")[0]).toMatch(/^\/usr\/bin\/env hermes-bridge hubs --wait \d+$/);
    expect(line(seat, "After")).toContain("hermes-bridge-hubs.service");
    // ordered after it, never pulled in by a seat: seats with share: seat need no hub service
    expect(line(seat, "Wants").join(" ")).not.toContain("hermes-bridge-hubs");
  });

  it("the seat unit's comments say a stop or a crash continues runs, never that it blocks them", () => {
    const comments = seat
      .split("\n")
      .filter((l) => l.startsWith("#"))
      .join("\n");
    expect(comments).not.toMatch(/\bblocks?\b|\bblocks them|as interrupted/i);
    expect(comments).toMatch(/claim KEPT/);
    expect(comments).toMatch(/continues each cut run/);
  });
});

describe("init --user: the seat is the service user's", () => {
  it.skipIf(!asRoot)(
    "its state dir and login home are the user's (0700), the config root's and read by its group (0640); login and doctor printed as the user",
    async () => {
      emu = await Emu.create("main");
      const etc = join(emu.dir, "etc");
      mkdirSync(etc, { mode: 0o755 });
      const stateDir = join(emu.dir, "lib", "claude-1");
      const file = join(etc, "claude-1.yaml");
      const argv = ["init", "--board", "main", "--seat", "claude-1", "--assignee", "claude", "--agent", "claude", "--user", "nobody", "--hermes-share", "host"];
      const more = ["--hermes", `${process.execPath} ${emu.command[1]}`, "--hermes-home", emu.home, "--state-dir", stateDir, "--config", file];
      const r = await runProcess({ argv: [process.execPath, CLI_BIN, ...argv, ...more], env: { PATH: process.env.PATH ?? "", HOME: emu.dir }, cwd: emu.dir });
      expect(r.stderr).toBe("");
      expect(r.exitCode).toBe(0);
      const nobody = { uid: 65534, gid: 65534 };
      const cfg = statSync(file);
      expect([cfg.uid, cfg.gid, cfg.mode & 0o777]).toEqual([0, nobody.gid, 0o640]);
      for (const d of [stateDir, join(stateDir, "claude")]) {
        const st = statSync(d);
        expect([d, st.uid, st.gid, st.mode & 0o777]).toEqual([d, nobody.uid, nobody.gid, 0o700]);
      }
      // the login as the user, from its HOME; doctor as the user, not run here as root
      expect(r.stdout).toContain(`runuser -u nobody -- sh -c 'cd && CLAUDE_CONFIG_DIR=${join(stateDir, "claude")} claude auth login'`);
      expect(r.stdout).toContain(`Then: runuser -u nobody -- hermes-bridge doctor --config ${file}`);
      // the seat runs as its user too: a root run would own what the user's state dir holds
      expect(r.stdout).toContain(`Run:  runuser -u nobody -- hermes-bridge run --config ${file}`);
      expect(r.stdout).not.toMatch(/^doctor:/m);
      // the seat shares the host's hub (hermes.share: host), said in the config
      const written = readFileSync(file, "utf8");
      expect((parse(written) as { hermes: { share: string } }).hermes.share).toBe("host");
      expect(written).toMatch(/# host: this host's seats of the board share one call server and watch.*\n\s+share: host\n/);
      // what the user can do with it: read its config, write its state dir
      const can = await runProcess({
        argv: ["runuser", "-u", "nobody", "--", "sh", "-c", `test -r '${file}' && test -w '${stateDir}' && test -w '${stateDir}/claude'`],
        env: { PATH: process.env.PATH ?? "" },
      });
      expect(can.exitCode).toBe(0);
    },
  );

  it("a user the host does not have is refused, naming it; nothing is written", async () => {
    emu = await Emu.create("main");
    const file = join(emu.dir, "s.yaml");
    const argv = ["init", "--board", "main", "--seat", "s", "--agent", "command", "--agent-command", "true", "--user", "no-such-user-hkb", "--config", file];
    const r = await runProcess({
      argv: [process.execPath, CLI_BIN, ...argv, "--state-dir", join(emu.dir, "s")],
      env: { PATH: process.env.PATH ?? "", HOME: emu.dir },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(asRoot ? /init --user: no user 'no-such-user-hkb' on this host/ : /init --user no-such-user-hkb: only root can give a seat/);
    expect(() => statSync(file)).toThrow();
  });
});
