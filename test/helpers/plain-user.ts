// A plain-user bridge in the hostile lane: a non-root uid the tests run the bridge as (setpriv through
// runProcess's uid/gid), and a test's tree given to it (the bridge, its state dir and its workspaces are its).
import { chownSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SEAT } from "./bridge.js";
import type { Emu } from "./emulator.js";

/** The plain user the bridge runs as. */
export const PLAIN_USER = { uid: 1000, gid: 1000 } as const;

/** Gives `p` and everything below it to `user` (never through a link: lstat-free, as the tests make only dirs and files). */
export function chownTree(p: string, user: { uid: number; gid: number } = PLAIN_USER): void {
  chownSync(p, user.uid, user.gid);
  if (statSync(p).isDirectory()) for (const n of readdirSync(p)) chownTree(join(p, n), user);
}

/** A seat's config file (`<emu dir>/seat.json`) on the emulator board with `agent` and `extra`: its path. */
export function seatConfigFile(e: Emu, stateDir: string, agent: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const cfg = join(e.dir, "seat.json");
  const seat = {
    boards: [e.slug],
    assignee: SEAT,
    hermes: { command: e.command, home: e.home, callServer: "on" },
    stateDir,
    agent,
    discovery: { watch: false },
  };
  writeFileSync(cfg, JSON.stringify({ ...seat, ...extra }));
  return cfg;
}
