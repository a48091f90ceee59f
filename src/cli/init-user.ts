// `hermes-bridge init --user <name>` (as root): the seat is given to the service user that will run it —
// the systemd unit's User= — so what root wrote is that user's to use: the state dir and the agent's login
// home are its own (0700, as the unit's StateDirectory= makes them), the config is root's and readable by
// the user's group (0640: the seat cannot rewrite its own settings), and the login and doctor are run as it.
import { chmodSync, chownSync } from "node:fs";
import { ExitError } from "../errors/index.js";
import { runProcess } from "../process/runner.js";
import { shellLine } from "../agents/cli-login.js";

export interface ServiceUser {
  name: string;
  uid: number;
  gid: number;
}

const NAME = /^[a-z_][a-z0-9_-]{0,31}\$?$/;

/** The user `--user` names, as the system knows it (`id`: local accounts and NSS alike); only root may hand a seat over. */
export async function serviceUser(name: string): Promise<ServiceUser> {
  if (process.getuid?.() !== 0) throw new ExitError(2, `init --user ${name}: only root can give a seat to another user (run init as that user instead)`);
  if (!NAME.test(name)) throw new ExitError(2, `init --user: '${name}' is not a user name`);
  const id = async (flag: string) => {
    const r = await runProcess({ argv: ["id", flag, "--", name], env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, timeoutMs: 10_000 });
    const n = Number(r.stdout.trim());
    if (r.exitCode !== 0 || !Number.isSafeInteger(n))
      throw new ExitError(
        2,
        `init --user: no user '${name}' on this host (${r.stderr.trim() || "id said nothing"}): make it first, e.g. useradd --system --create-home ${name}`,
      );
    return n;
  };
  return { name, uid: await id("-u"), gid: await id("-g") };
}

/** The seat's state dir and login home become the user's own; the config root's, read by the user's group. */
export function handOver(u: ServiceUser, o: { config: string; dirs: readonly string[] }): void {
  for (const d of o.dirs) chownSync(d, u.uid, u.gid);
  chownSync(o.config, 0, u.gid);
  chmodSync(o.config, 0o640);
}

/**
 * A command line run as the service user: a shell line (its variables and `&&` stay the user's), from the
 * user's HOME (runuser keeps root's working directory, which the user may not enter).
 */
export const asUser = (u: ServiceUser | null, line: string): string => (u ? shellLine({}, ["runuser", "-u", u.name, "--", "sh", "-c", `cd && ${line}`]) : line);
