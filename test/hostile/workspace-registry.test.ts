// The host's registry of workspaces handed over (jail/registry.ts, jail/live.ts; issue 50): two seats —
// this process and another (test/fixtures/workspace-seat.mjs, the built jail/live.js) — claiming at once,
// before either's jail has started, see each other: a workspace nesting with one being handed over is
// refused, the same one is joined (handed over once); what a seat that died left handed over is given back
// by the next seat, with its record, before its own hand-over; and a give-back waits for a seat that joined.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WorkspaceNested, claimWorkspace, releaseWorkspace } from "../../src/jail/live.js";
import { handOver } from "../../src/agent-files/owner.js";
import { untilHost } from "../helpers/steering.js";
import { scratchDir } from "../helpers/tmp.js";

const ROOT = process.getuid?.() === 0;
const SEAT = join(import.meta.dirname, "..", "fixtures", "workspace-seat.mjs");
const AGENT = { uid: 65534, gid: 65534 };
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
});

interface Other {
  signals: string;
  /** Its `claimed` file, once written. */
  claimed(): Promise<string>;
  go(what: "go-hand" | "go-release"): void;
  exited: Promise<void>;
}

/** Another seat's process claiming `workspace` (see the fixture for the options). */
function otherSeat(base: string, name: string, o: { workspace: string; registry: string; to?: typeof AGENT; holdHand?: boolean; release?: boolean }): Other {
  const signals = join(base, `signals-${name}`);
  mkdirSync(signals);
  const child = spawn(process.execPath, [SEAT, JSON.stringify({ ...o, signals, seat: join(base, `seat-${name}`) })], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.push(child);
  return {
    signals,
    claimed: async () => {
      await untilHost(`${name} claimed`, () => existsSync(join(signals, "claimed")));
      return readFileSync(join(signals, "claimed"), "utf8");
    },
    go: (what) => writeFileSync(join(signals, what), ""),
    exited: new Promise((r) => child.once("exit", () => r())),
  };
}

const host = (base: string, registry: string) => ({ registry, uid: null, seat: join(base, "seat-here"), records: join(base, "records-here") });

describe("the host's registry of workspaces handed over", () => {
  it("two seats at once, before any jail: a workspace inside one being handed over is refused, the same one joined (handed over once)", async () => {
    const base = scratchDir("hkb-registry-");
    const registry = join(base, "registry");
    const team = join(base, "projects", "team");
    mkdirSync(join(team, "b"), { recursive: true });
    const other = otherSeat(base, "outer", { workspace: team, registry, holdHand: true, release: true });
    await untilHost("the other seat's hand-over started", () => existsSync(join(other.signals, "in-hand")));
    const h = host(base, registry);
    const inner = claimWorkspace(join(team, "b"), {}, { ...h, hand: null });
    const handed: string[] = [];
    const same = {};
    const joined = claimWorkspace(team, same, {
      ...h,
      hand: async () => {
        handed.push(team);
        return null;
      },
    });
    other.go("go-hand");
    await expect(inner).rejects.toBeInstanceOf(WorkspaceNested);
    await expect(inner).rejects.toThrow(/is inside .*projects\/team", the workspace of a run alive on this host/);
    await expect(joined).resolves.toBeNull();
    expect(handed).toEqual([]);
    expect(await other.claimed()).toContain('"changed"');
    await releaseWorkspace(same, h);
    other.go("go-release");
    await other.exited;
  });

  it.skipIf(!ROOT)("a seat that died with the workspace handed over: the next seat gives it back with its record before its own hand-over", async () => {
    const base = scratchDir("hkb-registry-dead-");
    const registry = join(base, "registry");
    const ws = join(base, "projects", "k");
    mkdirSync(join(ws, "src"), { recursive: true });
    writeFileSync(join(ws, "src", "kept.txt"), "k");
    const dead = otherSeat(base, "dead", { workspace: ws, registry, to: AGENT, release: false });
    expect(await dead.claimed()).toMatch(/"changed":[1-9]/);
    await dead.exited;
    expect(statSync(join(ws, "src", "kept.txt")).uid).toBe(AGENT.uid);
    const h = host(base, registry);
    const run = {};
    const back = await claimWorkspace(ws, run, { ...h, hand: () => handOver(ws, AGENT) });
    // handed over from its owner, not from the agent's user the dead seat left it to
    expect(back?.changed).toBeGreaterThan(0);
    expect(back?.record.owner.uid).toBe(0);
    await releaseWorkspace(run, h);
    expect([statSync(ws).uid, statSync(join(ws, "src")).uid, statSync(join(ws, "src", "kept.txt")).uid]).toEqual([0, 0, 0]);
  });

  it.skipIf(!ROOT)("a give-back waits for a seat that joined: the workspace stays handed over until its run ends too", async () => {
    const base = scratchDir("hkb-registry-join-");
    const registry = join(base, "registry");
    const ws = join(base, "projects", "shared");
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, "a.txt"), "a");
    const h = host(base, registry);
    const run = {};
    expect((await claimWorkspace(ws, run, { ...h, hand: () => handOver(ws, AGENT) }))?.changed).toBeGreaterThan(0);
    const joined = otherSeat(base, "joined", { workspace: ws, registry, to: AGENT, release: true });
    expect(await joined.claimed()).not.toMatch(/^refused/);
    // this seat's run ends while the other's agent is starting: nothing is given back under it
    await releaseWorkspace(run, h);
    expect(statSync(join(ws, "a.txt")).uid).toBe(AGENT.uid);
    joined.go("go-release");
    await untilHost("the joined seat gave it back", () => existsSync(join(joined.signals, "released")));
    expect([statSync(ws).uid, statSync(join(ws, "a.txt")).uid]).toEqual([0, 0]);
  });
});
