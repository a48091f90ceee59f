#!/usr/bin/env node
// A synchronous fs call blocks the event loop: on a path the agent can write (its workspace, its run
// dir) a FIFO, a link or a slow mount would freeze the whole daemon or make it act outside (jail issue,
// rows 3 and 4). Such paths are read and written only through src/agent-files/ (or src/state/, which reads
// through it). Anywhere else in src/ a synchronous fs call stands only where its paths are the
// bridge's own — a file in ALLOWED below, saying why, or a `sync-io: <why>` comment on the line or
// the line above. Part of `npm test` (scripts/gates.mjs).
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Roles that never see an agent-writable path, or that are the boundary for them. */
const EXEMPT = ["src/agent-files/", "src/state/", "src/emulator/", "src/config/", "src/cli/"];

/** Files whose synchronous calls touch only the bridge's own paths. */
const ALLOWED = {
  "src/outbox/journal.ts": "the outbox journal, in the state dir",
  "src/continuity/journal.ts": "the session journal, in the state dir",
  "src/daemon/active-runs.ts": "the active-run journal, in the state dir",
  "src/daemon/build.ts": "the state dir's real path and the call log, at start",
  "src/agents/local-llm/history.ts": "the local loop's saved history, in the state dir",
  "src/board/server-launch.ts": "the call server's source in the package and the hermes launcher's first line",
  "src/git/runner.ts": "the bridge's own global git config, in the state dir",
  "src/git/view.ts": "the private git view in the run's private dir (the workspace is only lstat'ed, never opened)",
  "src/jail/jail.ts": "the agent's program and the bridge's preload, read at start; the jail's passwd files in the state dir",
  "src/jail/policy.ts": "/etc/passwd and the bubblewrap program, at start; lstat of a mount's parents",
  "src/agents/codex/native.ts": "the operator's Codex install (agent.command on its PATH), read before the run",
  "src/jail/system.ts": "the host's /usr links, /etc entries and /proc knobs, read at start",
  "src/jail/program.ts": "stat of the programs the operator named (agent.command, its PATH)",
  "src/jail/images.ts": "the first bytes of a program the operator named and of its interpreter (never one in the workspace)",
  "src/jail/run-jail.ts": "/proc: the mount namespaces of the run's own processes",
  "src/jail/cgroups.ts": "/proc/self and the run's cgroup files (the kernel's)",
  "src/jail/limits.ts": "/run/systemd/system, at start",
  "src/jail/identity.ts": "stat of a mount's parents (never opened)",
  "src/jail/stage.ts": "the bridge's own staging folder under the temp dir, and a stat of each source",
  "src/process/liveness.ts": "/proc",
  "src/process/descriptors.ts": "/proc/self: the bridge's own descriptors, at start",
  "src/process/terminate.ts": "/proc",
  "src/process/runner.ts": "the output files, made O_NOFOLLOW in the run's fresh dir before the child starts",
  "src/process/tail.ts": "an output file opened once before the child starts (O_NOFOLLOW, a regular file), then only its descriptor",
  "src/run/prepare/prompt.ts": "the prompt templates, at start",
  "src/tools/socket-path.ts": "the run's private socket dir",
  "src/tools/socket.ts": "the run's private socket dir",
  "src/workspace/resolve.ts": "stat/lstat of the workspace path: never an open, never a read",
  "src/workspace/checkout.ts": "the mirrors and checkout dirs under localRoot, made and read before the agent works there (the agent's files only through git and agent-files/)",
  "src/agents/claude-code/kind.ts": "the bundled prompt, at start",
  "src/agents/codex/kind.ts": "the bundled prompt, at start",
};

const SYNC = /\b(?:readFileSync|writeFileSync|appendFileSync|openSync|readSync|writeSync|existsSync|statSync|lstatSync|fstatSync|readdirSync|mkdirSync|rmSync|renameSync|realpathSync|readlinkSync|copyFileSync|unlinkSync|mkdtempSync|chmodSync|accessSync|closeSync|fsyncSync|symlinkSync|opendirSync|truncateSync|ftruncateSync|linkSync|cpSync)\(/;

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (p.endsWith(".ts")) yield p;
  }
}

const problems = [];
for (const f of Object.keys(ALLOWED)) if (!existsSync(f) || !statSync(f).isFile()) problems.push(`${f}: listed in ALLOWED but gone (remove the entry)`);
for (const f of files("src")) {
  if (EXEMPT.some((e) => f.startsWith(e)) || f in ALLOWED) continue;
  const lines = readFileSync(f, "utf8").split("\n");
  lines.forEach((line, i) => {
    if (/^\s*(\/\/|\*|import )/.test(line) || !SYNC.test(line)) return;
    if (/sync-io:/.test(line) || /sync-io:/.test(lines[i - 1] ?? "")) return;
    problems.push(`${f}:${i + 1}: a synchronous fs call outside src/agent-files/ — read agent-writable paths through src/agent-files/, or say why its path is the bridge's own (// sync-io: …)\n    ${line.trim()}`);
  });
}
if (problems.length) {
  process.stderr.write(`${problems.join("\n")}\n`);
  process.exit(1);
}
process.stdout.write("sync-io: no synchronous fs call on an agent-writable path outside src/agent-files/\n");
