// Descriptors the bridge inherited without close-on-exec (a wrapper's `exec 20<secrets.env`, a service
// manager's socket) would pass into every child it starts — agents and their jails included: libuv and
// bubblewrap close nothing they were not told about. The CLI closes them first thing (Node's own
// descriptors are all close-on-exec, and so are the ones it opens later), so that only what a child is
// given reaches it.
import { closeSync, readFileSync, readdirSync } from "node:fs";

const O_CLOEXEC = 0o2000000;

/** Descriptors above stderr of this process that a child would inherit (not close-on-exec), from /proc. */
export function inheritedDescriptors(keep: readonly number[] = []): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2 || keep.includes(fd)) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1];
      if (flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) out.push(fd);
    } catch {
      // closed while we looked (the readdir's own descriptor)
    }
  }
  return out;
}

/** Closes every inherited descriptor but Node's IPC channel (NODE_CHANNEL_FD); says which. */
export function closeInheritedDescriptors(env: NodeJS.ProcessEnv = process.env): number[] {
  const ipc = Number(env.NODE_CHANNEL_FD);
  const fds = inheritedDescriptors(Number.isInteger(ipc) ? [ipc] : []);
  for (const fd of fds)
    try {
      closeSync(fd);
    } catch {
      // already gone
    }
  return fds;
}
