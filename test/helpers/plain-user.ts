// A plain-user bridge in the hostile lane: a non-root uid the tests run the bridge as (setpriv through
// runProcess's uid/gid), and a test's tree given to it (the bridge, its state dir and its workspaces are its).
import { chownSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** The plain user the bridge runs as. */
export const PLAIN_USER = { uid: 1000, gid: 1000 } as const;

/** Gives `p` and everything below it to `user` (never through a link: lstat-free, as the tests make only dirs and files). */
export function chownTree(p: string, user: { uid: number; gid: number } = PLAIN_USER): void {
  chownSync(p, user.uid, user.gid);
  if (statSync(p).isDirectory()) for (const n of readdirSync(p)) chownTree(join(p, n), user);
}
