// Row 5's last door, tried from inside the jail: a process of the jail reaching the CLI's stream through
// /proc — writing lines "of the CLI" into its memory (`/proc/<pid>/mem`, open to the same uid where the host
// has no Yama LSM, as here) or reopening a descriptor that holds the stream (`/proc/<pid>/fd/N`). One
// python3 pass over the jail's /proc prints a line per process:
//   HKB-STREAM <who> <pid> <comm> holds=<yes|no|unknown> mem=<OPEN|why>
// `holds`: whether its descriptors (if they can be listed at all) reach the CLI's output file; `mem`: whether
// its memory opens for writing. <who> is `cli` for the process named (the parent of the probe's shell, for a
// fixture CLI), `control` for a child the probe started itself (an ordinary process of the jail: its memory
// opens, so the probe can see an open door), `proc` for the rest. Then, inside a jail only (its own pid
// namespace: bubblewrap is pid 1), SIGUSR1 to every Node process there — a Node process opens its debugger
// on 127.0.0.1:9229 for it, and a debugger runs code in the CLI — and a look at that port:
//   HKB-STREAM-DEBUG <open|closed|skipped>   and, with a Node of its own started without the bridge's
//   NODE_OPTIONS (the control),   HKB-STREAM-DEBUG-CONTROL <open|closed>

const PY = `
import os, sys
cli, control, me = sys.argv[1], sys.argv[2], str(os.getpid())
for p in sorted((d for d in os.listdir("/proc") if d.isdigit()), key=int):
    if p == me:
        continue
    holds = "unknown"
    try:
        holds = "no"
        for f in os.listdir(f"/proc/{p}/fd"):
            try:
                if "agent-stdout.log" in os.readlink(f"/proc/{p}/fd/{f}"):
                    holds = "yes"
            except OSError:
                pass
    except OSError:
        holds = "unknown"
    try:
        os.close(os.open(f"/proc/{p}/mem", os.O_RDWR))
        mem = "OPEN"
    except OSError as e:
        mem = (e.strerror or "error").replace(" ", "-")
    try:
        comm = open(f"/proc/{p}/comm").read().strip().replace(" ", "_")
    except OSError:
        comm = "?"
    who = "cli" if p == cli else "control" if p == control else "proc"
    print("HKB-" + "STREAM", who, p, comm, "holds=" + holds, "mem=" + mem)

import signal, socket, subprocess, time
def debugger():
    s = socket.socket()
    s.settimeout(1)
    try:
        s.connect(("127.0.0.1", 9229))
        return "open"
    except OSError:
        return "closed"
    finally:
        s.close()
def comm_of(p):
    try:
        return open(f"/proc/{p}/comm").read().strip()
    except OSError:
        return ""
if comm_of("1") != "bwrap":
    print("HKB-" + "STREAM-DEBUG", "skipped")
else:
    for p in (d for d in os.listdir("/proc") if d.isdigit() and d != me):
        if comm_of(p) == "node":
            try:
                os.kill(int(p), signal.SIGUSR1)
            except OSError:
                pass
    time.sleep(1)
    print("HKB-" + "STREAM-DEBUG", debugger())
    env = {k: v for k, v in os.environ.items() if k != "NODE_OPTIONS"}
    n = subprocess.Popen(["node", "-e", "setTimeout(() => {}, 20000)"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    n.send_signal(signal.SIGUSR1)
    time.sleep(1)
    print("HKB-" + "STREAM-DEBUG-CONTROL", debugger())
    n.kill()
`;

/** The probe as a POSIX sh script; `cli`: a shell expression for the CLI's pid (default: the shell's parent). */
export function streamProbe(cli = "$PPID"): string {
  return [
    "sleep 30 & ctl=$!",
    `python3 -c '${PY.replace(/'/g, "'\\''")}' "${cli}" "$ctl"`,
    // and the old roads: the CLI's own stdout reopened through /proc
    // (the marker put together at run time: the script's own text, echoed in a tool call, never matches)
    `(echo '{"type":"rate_limit_event"}' > /proc/${cli}/fd/1) 2>/dev/null && r=wrote || r=refused; echo "HKB-STREAM-FD $r"`,
    "kill $ctl",
  ].join("\n");
}

export interface StreamLine {
  who: "cli" | "control" | "proc";
  pid: number;
  comm: string;
  holds: "yes" | "no" | "unknown";
  mem: string;
}

/** The probe's lines, found in any text (JSON-escaped or not). */
export function parseStream(text: string): {
  lines: StreamLine[];
  fd: "wrote" | "refused" | null;
  debug: "open" | "closed" | "skipped" | null;
  debugControl: "open" | "closed" | null;
} {
  const t = text.replace(/\\n/g, "\n");
  const lines = [...t.matchAll(/HKB-STREAM (cli|control|proc) (\d+) (\S+) holds=(yes|no|unknown) mem=([^\s"\\]+)/g)].map((m) => ({
    who: m[1] as StreamLine["who"],
    pid: Number(m[2]),
    comm: m[3] ?? "",
    holds: m[4] as StreamLine["holds"],
    mem: m[5] ?? "",
  }));
  const fd = /HKB-STREAM-FD (wrote|refused)/.exec(t)?.[1] as "wrote" | "refused" | undefined;
  const debug = /HKB-STREAM-DEBUG (open|closed|skipped)/.exec(t)?.[1] as "open" | "closed" | "skipped" | undefined;
  const debugControl = /HKB-STREAM-DEBUG-CONTROL (open|closed)/.exec(t)?.[1] as "open" | "closed" | undefined;
  return { lines, fd: fd ?? null, debug: debug ?? null, debugControl: debugControl ?? null };
}
