// What an agent tries from inside its jail, as one POSIX sh script any agent kind can run (a command
// agent's child, the local loop's run_command, Claude Code's Bash tool, Codex's exec_command): read the
// bridge's /proc entry, its HOME, its config, the state dir, another workspace and the board's database;
// write the state dir, another workspace and the board's dir; write its own workspace. Each attempt prints
// one line (`HKB-PROBE <read|denied|wrote|nowrite> <path>`) that the test finds in whatever the agent
// reported (its outcome, the tool result in the model's next request).
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

export interface ProbeTargets {
  read: string[];
  write: string[];
}

/**
 * The targets for a seat on an emulator board (the bridge is this process: an in-process daemon). The
 * state dir is probed through a file in it: the agent's run dir and its CLI's home are inside the state
 * dir, so the jail shows the path down to them (empty directories on its own tmpfs) — never a file of it.
 */
export function probeTargets(o: { home: string; stateDir: string; dir: string; bridgePid?: number }): ProbeTargets {
  mkdirSync(o.stateDir, { recursive: true, mode: 0o700 });
  const sentinel = join(o.stateDir, "outbox-sentinel.jsonl");
  writeFileSync(sentinel, '{"the bridge\'s":"state"}\n', { mode: 0o600 });
  const boardDir = join(o.home, "kanban", "boards", "bridge");
  const other = join(boardDir, "workspaces", "t_other");
  mkdirSync(other, { recursive: true });
  writeFileSync(join(other, "their-work.txt"), "another task's work\n");
  const config = join(o.dir, "seat.yaml");
  writeFileSync(config, "webhook: {secretEnv: HKB_WEBHOOK_SECRET}\n", { mode: 0o600 });
  const db = readdirSync(boardDir).find((f) => f.endsWith(".db"));
  return {
    read: [`/proc/${o.bridgePid ?? process.pid}/environ`, homedir(), config, sentinel, join(other, "their-work.txt"), ...(db ? [join(boardDir, db)] : [])],
    write: [join(o.stateDir, "pwned"), join(other, "pwned"), join(boardDir, "pwned"), join(dirname(o.stateDir), "pwned")],
  };
}

const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/**
 * The probe as one sh script (reads, writes, then a write into its own workspace: `./probe-ok`). The
 * marker is put together at run time, so the script's own text (echoed in a tool call) never matches.
 */
export function probeScript(t: ProbeTargets): string {
  return [
    'M=HKB-; M="$M"PROBE',
    'r() { if [ -d "$1" ]; then ls -A "$1" >/dev/null 2>&1 && echo "$M read $1" || echo "$M denied $1"; else cat "$1" >/dev/null 2>&1 && echo "$M read $1" || echo "$M denied $1"; fi; }',
    'w() { (echo pwned > "$1") 2>/dev/null && echo "$M wrote $1" || echo "$M nowrite $1"; }',
    ...t.read.map((p) => `r ${q(p)}`),
    ...t.write.map((p) => `w ${q(p)}`),
    "w ./probe-ok",
    'if [ -n "$HERMES_BRIDGE_INBOX" ]; then w "$HERMES_BRIDGE_INBOX"; fi',
    "echo HKB-PROBE-END",
  ].join("\n");
}

export interface ProbeResult {
  read: string[];
  denied: string[];
  wrote: string[];
  nowrite: string[];
}

/** The probe's lines, found in any text (JSON-escaped or not; the state dir's path shown as the board sees it, `<state dir>`). */
export function parseProbe(text: string, stateDir?: string): ProbeResult {
  const out: ProbeResult = { read: [], denied: [], wrote: [], nowrite: [] };
  for (const m of text.replace(/\\n/g, "\n").matchAll(/HKB-PROBE (read|denied|wrote|nowrite) ([^\n"\\]+)/g))
    out[m[1] as keyof ProbeResult].push(stateDir ? (m[2] ?? "").replace("<state dir>", stateDir) : (m[2] ?? ""));
  return out;
}

/** The files of a task's saved transcript (its CLI home's session files, kept for the task's next run), relative. */
export function savedTranscript(stateDir: string, board: string, task: string): string[] {
  const root = join(stateDir, "sessions", `${board}__${task}`, "transcript");
  const out: string[] = [];
  const walk = (d: string, rel: string): void => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p, `${rel}${n}/`);
      else out.push(`${rel}${n}`);
    }
  };
  walk(root, "");
  return out.sort();
}
