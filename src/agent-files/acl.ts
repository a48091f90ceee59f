// The POSIX ACLs of a tree's entries (the `system.posix_acl_access` and, on a directory,
// `system.posix_acl_default` extended attributes): read before a hand-over, put back or removed at the
// give-back, so an ACL the agent added (`u:nobody:rwx`, a default ACL its new files inherit) never
// outlives its run. Through @napi-rs/xattr, whose calls never follow a link (l*xattr); a path is always
// one through a held directory descriptor (agent-files/walk.ts). Loaded when first needed: a host where it
// cannot load refuses the hand-over (said), rather than give a tree away it could not take back whole.
import { PermanentError } from "../errors/index.js";

export const ACL_NAMES = ["system.posix_acl_access", "system.posix_acl_default"] as const;
export type AclName = (typeof ACL_NAMES)[number];

interface Xattr {
  getAttribute(path: string, name: string): Promise<Buffer | null>;
  listAttributes(path: string): Promise<string[]>;
  removeAttribute(path: string, name: string): Promise<void>;
  setAttribute(path: string, name: string, value: Buffer): Promise<void>;
}

/** The ACLs of a tree cannot be read on this host: it is not handed to another user. */
export class AclsUnreadable extends PermanentError {
  constructor(cause: unknown) {
    super(
      "acls_unreadable",
      `the workspace's ACLs cannot be read here (@napi-rs/xattr did not load: ${(cause as Error).message}): it is not handed to the agent's user`,
      { cause },
    );
  }
}

let loaded: Promise<Xattr> | null = null;
const xattr = (): Promise<Xattr> => {
  loaded ??= import("@napi-rs/xattr").then(
    (m) => m as unknown as Xattr,
    (err: unknown) => {
      loaded = null;
      throw new AclsUnreadable(err);
    },
  );
  return loaded;
};

/** Loads the library now (the hand-over's first step): throws AclsUnreadable where it cannot. */
export async function aclsReadable(): Promise<void> {
  await xattr();
}

/** The entry's ACLs, by name (none: an empty map; a filesystem without ACLs has none). */
export async function readAcls(path: string): Promise<Map<AclName, Buffer>> {
  const x = await xattr();
  const out = new Map<AclName, Buffer>();
  let names: string[];
  try {
    names = await x.listAttributes(path);
  } catch {
    return out; // no extended attributes here (a filesystem without them, a link)
  }
  for (const name of ACL_NAMES)
    if (names.includes(name)) {
      const value = await x.getAttribute(path, name);
      if (value) out.set(name, value);
    }
  return out;
}

/** Makes the entry's ACLs exactly `want` (recorded before the run; empty: none). What changed, by name. */
export async function putAcls(path: string, want: ReadonlyMap<AclName, Buffer>): Promise<AclName[]> {
  const x = await xattr();
  const now = await readAcls(path);
  const changed: AclName[] = [];
  for (const name of ACL_NAMES) {
    const w = want.get(name);
    const n = now.get(name);
    if (w && !n?.equals(w)) {
      await x.setAttribute(path, name, w);
      changed.push(name);
    } else if (!w && n) {
      await x.removeAttribute(path, name);
      changed.push(name);
    }
  }
  return changed;
}
