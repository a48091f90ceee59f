// The bubblewrap command line of one jailed process, as a pure function of what the jail may show.
// The jail's root is an empty tmpfs: only what is bound here exists inside — the system read-only
// (/usr, the /bin /lib… links, a minimal /etc), a fresh /proc (its own pid namespace: the bridge's
// processes are not there), /dev, /tmp and HOME; then the run's own paths at their real paths. Order
// matters: later mounts go on top of earlier ones (a read-only file over a read-write run dir).
import { JAIL_MARKER_VAR } from "../process/terminate.js";

/** What one jailed process may see, each at its real path. */
export interface JailMounts {
  /** Read-write: the workspace, the run dir, the agent CLI's per-seat home, the task-tool socket. */
  readWrite: readonly string[];
  /** Read-only: the agent's program, Node, the bridge's task-tools server, operator toolchains. */
  readOnly: readonly string[];
  /** Read-only on top of a read-write dir (the note inbox, the context file inside the run dir). */
  readOnlyOver: readonly string[];
  /** Files that stand in for /etc/passwd and /etc/group (one line for the agent's user). */
  passwd: string;
  group: string;
  /** proxy and none: a network namespace of its own (proxy: with the run's proxy socket bound in, `egress`). */
  network: "proxy" | "host" | "none";
  /** The run's proxy socket and where the jail shows it (network: proxy). */
  egress?: { socket: string; at: string } | undefined;
  /**
   * Sources the agent's uid cannot reach by their paths (under a 0700 parent: /root, a Hermes home), by
   * where they are staged for bubblewrap (jail.ts): bound there first, in a mount namespace of the jail's own.
   */
  via?: Readonly<Record<string, string>>;
  /**
   * Execute-only copies bound over the program's images (images.ts), each [copy, real path]: last, on top of
   * the program's own mounts — the CLI runs from them, and no process of the jail can read its memory.
   */
  execOnly?: readonly (readonly [string, string])[] | undefined;
  /** The descriptor bubblewrap reads the jail's system-call filter from (seccomp.ts; JailedCommand.files). */
  seccompFd?: number | undefined;
  /** Size of the jail's /tmp (a tmpfs in RAM), bytes; unset: the kernel's default (half the RAM). */
  tmpBytes?: number | undefined;
  cwd: string;
  /**
   * What names this jail in its bubblewrap command line (`--setenv HKB_JAIL <marker>`), which the jail's
   * own processes keep — the outer bwrap and its namespace's init alike: a jail whose outer process died
   * while it was still being set up (before its namespace init armed --die-with-parent) is found by it.
   */
  marker: string;
}

/** /dev/shm's size without agent.limits.tmpMiB (Docker's default). */
const SHM_DEFAULT_BYTES = 64 * 1024 * 1024;

/** The agent's HOME inside the jail (on the jail's own /tmp: fresh for every run). */
export const JAIL_HOME = "/tmp/home";

/** The system parts every process needs: directories bound read-only, or the symlinks a merged-/usr system has. */
export interface SystemLayout {
  /** Top-level entries like /bin, /lib64: a symlink target ("usr/bin"), or "dir". */
  tops: Readonly<Record<string, string>>;
  /** /etc entries that exist on this host (resolver, CA certificates, the loader cache…). */
  etc: readonly string[];
  /** The /proc entries of PROC_READ_ONLY / PROC_HIDDEN_* this kernel has. */
  proc: { readOnly: readonly string[]; hiddenFiles: readonly string[]; hiddenDirs: readonly string[] };
}

/** The /etc entries a program may need to start and to reach its API; nothing else of /etc is shown. */
export const ETC_ENTRIES = [
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/nsswitch.conf",
  "/etc/host.conf",
  "/etc/gai.conf",
  "/etc/services",
  "/etc/protocols",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
  "/etc/localtime",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/alternatives",
  "/etc/mime.types",
] as const;

export const TOP_ENTRIES = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] as const;

/**
 * The host-wide knobs of a fresh /proc: read-only (`sys`: every sysctl, the host's own among them; the
 * sysrq trigger; bus, irq and fs settings) or hidden (the kernel's memory and symbols, its keyrings, its
 * log, its timers). An unprivileged uid cannot write them anyway; a read-only mount says so to anyone
 * who tries (EROFS) whatever the uid.
 */
export const PROC_READ_ONLY = ["sys", "sysrq-trigger", "bus", "irq", "fs"] as const;
export const PROC_HIDDEN_FILES = ["kcore", "kallsyms", "keys", "key-users", "kmsg", "timer_list", "sched_debug", "latency_stats", "config.gz"] as const;
export const PROC_HIDDEN_DIRS = ["acpi", "scsi"] as const;

/** `bwrap` arguments (without the program name) that run `argv` inside the jail. */
export function bwrapArgs(m: JailMounts, sys: SystemLayout, argv: readonly string[]): string[] {
  // Its own user namespace first: whoever starts it, the agent holds no capability of the host's.
  const a: string[] = [
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--new-session",
    "--die-with-parent",
    "--cap-drop",
    "ALL",
  ];
  a.push("--setenv", JAIL_MARKER_VAR, m.marker);
  if (m.seccompFd !== undefined) a.push("--seccomp", String(m.seccompFd));
  if (m.network !== "host") a.push("--unshare-net");
  a.push("--ro-bind", "/usr", "/usr");
  for (const [top, kind] of Object.entries(sys.tops)) {
    if (kind === "dir") a.push("--ro-bind", top, top);
    else a.push("--symlink", kind, top);
  }
  for (const e of sys.etc) a.push("--ro-bind", e, e);
  const src = (p: string) => m.via?.[p] ?? p;
  a.push("--ro-bind", src(m.passwd), "/etc/passwd", "--ro-bind", src(m.group), "/etc/group");
  a.push("--proc", "/proc");
  for (const e of sys.proc.readOnly) a.push("--ro-bind", `/proc/${e}`, `/proc/${e}`);
  for (const e of sys.proc.hiddenFiles) a.push("--ro-bind", "/dev/null", `/proc/${e}`);
  for (const e of sys.proc.hiddenDirs) a.push("--tmpfs", `/proc/${e}`, "--remount-ro", `/proc/${e}`);
  // /dev read-only but for a sized /dev/shm (POSIX semaphores, shared memory): no RAM of the host's to fill there.
  a.push("--dev", "/dev", "--size", String(m.tmpBytes ?? SHM_DEFAULT_BYTES), "--tmpfs", "/dev/shm", "--remount-ro", "/dev");
  if (m.tmpBytes !== undefined) a.push("--size", String(m.tmpBytes));
  a.push("--tmpfs", "/tmp", "--dir", JAIL_HOME);
  for (const p of m.readOnly) a.push("--ro-bind", src(p), p);
  for (const p of m.readWrite) a.push("--bind", src(p), p);
  for (const p of m.readOnlyOver) a.push("--ro-bind", src(p), p);
  if (m.egress) a.push("--bind", src(m.egress.socket), m.egress.at);
  for (const [copy, at] of m.execOnly ?? []) a.push("--ro-bind", src(copy), at);
  // The jail's own root (a tmpfs holding the mount points) read-only last: nothing written there but the mounts' own.
  a.push("--remount-ro", "/", "--chdir", m.cwd, "--", ...argv);
  return a;
}
