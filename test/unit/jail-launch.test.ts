// How a bubblewrap jail starts its command (jail/jail.ts, jail/relay.ts): the relay first, with the stream and
// the lifeline on the descriptors after the jail's files, its network or --no-network; the operator's
// NODE_OPTIONS kept aside for the relay's child; a relay no agent may see is refused at the seat's start.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Jail, type JailPolicy, launchOf } from "../../src/jail/jail.js";
import { forbiddenRoots, resolvePolicy } from "../../src/jail/policy.js";
import { NODE_RELAY as JAIL_RELAY, PYTHON_RELAY, QUIET_DEBUG, RELAY_CHILD_NODE_OPTIONS, jailRelay } from "../../src/jail/relay.js";

const root = mkdtempSync(join(tmpdir(), "hkb-launch-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const forbidden = forbiddenRoots({ stateDir: join(root, "state"), localRoot: join(root, "local"), hermesHomes: [] });
const run = { workspace: join(root, "ws"), runDir: join(root, "run") };
for (const d of [run.workspace, run.runDir]) mkdirSync(d, { recursive: true });

const jailOf = (o: Partial<JailPolicy>) =>
  new Jail({
    mode: "bwrap",
    why: "test",
    bwrap: "/usr/bin/bwrap",
    network: "none",
    readOnly: [],
    readWrite: [],
    dir: join(root, "jail"),
    user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, name: "me", same: true },
    forbidden,
    ...o,
  });
/** What bubblewrap runs: everything after its own `--`. */
const inside = (argv: readonly string[]) => argv.slice(argv.indexOf("--") + 1);

describe("a jail's command line", () => {
  it("the relay first, with the stream and the lifeline after the jail's files, then the program", () => {
    const c = jailOf({}).command(["/bin/true", "x"], { PATH: "/usr/bin:/bin" }, run, { ownStream: true });
    expect(inside(c.argv)).toEqual([...JAIL_RELAY, "--no-network", "--stream", "3", "--lifeline", "4", "--", "/bin/true", "x"]);
    expect([c.streamFd, c.lifelineFd]).toEqual([3, 4]);
    const filtered = jailOf({ seccomp: join(root, "filter") }).command(["/bin/true"], {}, run);
    expect(inside(filtered.argv)).toEqual([...JAIL_RELAY, "--no-network", "--lifeline", "4", "--", "/bin/true"]);
    expect(launchOf(filtered)).toMatchObject({ inheritFiles: [join(root, "filter")], streamFd: undefined, lifelineFd: 4 });
  });

  it("behind the run's proxy: the relay's port, the socket in the jail and the allowed host services", () => {
    const egress = { socket: join(root, "s"), port: 3128, at: "/run/hkb/egress.sock", env: {}, forwards: ["127.0.0.1:8080"] };
    const c = jailOf({ network: "proxy" }).command(["/bin/true"], {}, { ...run, egress }, { ownStream: true });
    expect(inside(c.argv)).toEqual([
      ...JAIL_RELAY,
      "3128",
      "/run/hkb/egress.sock",
      "--forward",
      "127.0.0.1:8080",
      "--stream",
      "3",
      "--lifeline",
      "4",
      "--",
      "/bin/true",
    ]);
  });

  it("the relay the policy names starts the jail (agent.isolation.relay): Python where /usr/bin/python3 is, unless node is asked", () => {
    const c = jailOf({ relay: PYTHON_RELAY }).command(["/bin/true"], {}, run);
    expect(inside(c.argv)).toEqual([...PYTHON_RELAY, "--no-network", "--lifeline", "3", "--", "/bin/true"]);
    // both relays' files are shown: git's ssh reaches the proxy through the Node one's --connect
    for (const p of [...PYTHON_RELAY, ...JAIL_RELAY].filter((x) => x.startsWith("/"))) expect(c.argv.join(" ")).toContain(`--ro-bind ${p} ${p}`);
    expect(jailRelay("node").argv).toEqual(JAIL_RELAY);
    expect(jailRelay("auto").argv).toEqual(existsSync("/usr/bin/python3") ? PYTHON_RELAY : JAIL_RELAY);
  });

  it("the operator's NODE_OPTIONS go to the relay's child, not to the relay; a forged carrier is dropped", () => {
    const env = { NODE_OPTIONS: "--require /opt/x.js", [RELAY_CHILD_NODE_OPTIONS]: "--require /opt/forged.js" };
    const own = jailOf({}).command(["/bin/true"], env, run, { ownStream: true }).env;
    expect(own.NODE_OPTIONS).toBeUndefined();
    expect(own[RELAY_CHILD_NODE_OPTIONS]).toBe(`--require /opt/x.js --import=${QUIET_DEBUG}`);
    const gate = jailOf({}).command(["/bin/true"], env, run).env;
    expect([gate.NODE_OPTIONS, gate[RELAY_CHILD_NODE_OPTIONS]]).toEqual([undefined, "--require /opt/x.js"]);
    const none = jailOf({}).command(["/bin/true"], { [RELAY_CHILD_NODE_OPTIONS]: "--require /opt/forged.js" }, run).env;
    expect(RELAY_CHILD_NODE_OPTIONS in none).toBe(false);
  });

  it("NODE_OPTIONS that would load a module found from the workspace (a relative path, a package name) is refused, naming it", () => {
    const jail = jailOf({});
    for (const [options, named] of [
      ["--require ./x.js", "./x.js"],
      ["--max-old-space-size=99 -r evil", "evil"],
      ['--import="hook.mjs"', "hook.mjs"],
      ["--experimental-loader ../l.mjs", "../l.mjs"],
    ] as const)
      expect(() => jail.command(["/bin/true"], { NODE_OPTIONS: options }, run)).toThrow(
        `the agent's jail may not show ${named}: NODE_OPTIONS loads it by a path that is not absolute`,
      );
    // absolute paths, file URLs and Node's own modules are no file of the workspace
    expect(() =>
      jail.command(["/bin/true"], { NODE_OPTIONS: "--require /opt/a.js --import=file:///opt/b.mjs --import node:fs --max-old-space-size=9" }, run),
    ).not.toThrow();
  });
});

describe("a relay no agent may see", () => {
  const iso = { network: "none" as const, readOnly: [], readWrite: [], bwrap: "bwrap", user: "auto" };
  // the bridge's Node under a forbidden root (here: a Hermes home)
  const under = forbiddenRoots({ stateDir: join(root, "state"), localRoot: join(root, "local"), hermesHomes: [dirname(realpathSync(process.execPath))] });

  it("refuses mode bwrap at the start, naming it; auto goes without a jail, saying why", async () => {
    const o = { env: process.env, dir: join(root, "jail2"), forbidden: under };
    await expect(resolvePolicy({ ...iso, mode: "bwrap" }, o)).rejects.toThrow(
      /agent\.isolation\.mode: is bwrap, but the jail's first process, \S*(?:node|python)\S*, is where no agent may look/,
    );
    const auto = await resolvePolicy({ ...iso, mode: "auto" }, o);
    expect(auto.mode).not.toBe("bwrap");
    expect(auto.why).toMatch(/the jail's first process, \S*(?:node|python)\S*, is where no agent may look .*install the bridge and its Node elsewhere/);
  });
});
