// A child that must end with the bridge however the bridge ends — a SIGKILL included, which no handler of ours sees:
// setpriv's parent-death signal (util-linux), armed before the child's program starts, then a check that the parent
// it was armed against is still the one that started it (a bridge that died between the fork and the arming left the
// child reparented to init: it exits at once, 125). The jail's first process and the board's `watch` start this way.
import { existsSync } from "node:fs";
import { join } from "node:path";

/** Where the host's own tools (setpriv, bwrap) are looked for after the bridge's PATH: a narrow PATH never hides them. */
export const HOST_TOOL_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

const PARENT_CHECK = 'read -r _ _ _ pp _ < /proc/$$/stat; [ "$pp" = "$1" ] || exit 125; shift; exec "$@"';

/** `argv` started so that it gets SIGKILL when `parent` ends (`before`: setpriv's own options, e.g. a uid switch, in that order). */
export function diesWithParent(setpriv: string, parent: number, argv: readonly string[], before: readonly string[] = []): string[] {
  return [setpriv, ...before, "--pdeathsig", "KILL", "--", "/bin/sh", "-c", PARENT_CHECK, "hkb-parent", String(parent), ...argv];
}

let found: string | null | undefined;
/** The host's setpriv (absolute), or null where it has none: looked up once, in the host's own tool folders. */
export function hostSetpriv(): string | null {
  if (found !== undefined) return found;
  const shell = existsSync("/bin/sh"); // sync-io: the host's own tool folders (root's), read once per process
  const at = HOST_TOOL_PATH.split(":").map((d) => join(d, "setpriv"));
  found = (shell && at.find((p) => existsSync(p))) || null; // sync-io: as above
  return found;
}
