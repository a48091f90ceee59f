// bubblewrap, started as the agent's uid, resolves every source path as that uid: one under a 0700 parent
// (a state dir under /root, a Hermes home, a CLI under ~/.nvm) cannot be shown to it by path. Such a
// source is staged: an empty mount point in a passable folder of the bridge's, which the command's wrapper
// (limits.ts) binds the source onto in a mount namespace of the jail's own — nothing of it reaches the
// host's mounts — before it drops to that uid; bubblewrap then binds the staged path at the real one.
import { chmodSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JailMounts } from "./bwrap.js";
import { type AgentUser, cannotReach } from "./identity.js";

export function stageFor(m: JailMounts, user: AgentUser): { dir: string; binds: (readonly [string, string])[] } | undefined {
  const sources = [
    ...new Set([
      m.passwd,
      m.group,
      ...m.readOnly,
      ...m.readWrite,
      ...m.readOnlyOver,
      ...(m.egress ? [m.egress.socket] : []),
      ...(m.execOnly ?? []).map(([copy]) => copy),
    ]),
  ];
  const hidden = sources.filter((p) => cannotReach(p, user) !== null);
  if (hidden.length === 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "hkb-stage-"));
  chmodSync(dir, 0o711);
  const binds = hidden.map((p, i) => {
    const at = join(dir, String(i));
    if (statSync(p).isDirectory()) mkdirSync(at, { mode: 0o700 });
    else writeFileSync(at, "", { mode: 0o600 });
    return [p, at] as const;
  });
  return { dir, binds };
}
