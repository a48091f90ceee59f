// Workspace tools for the local-LLM loop, confined to the workspace through the one boundary
// (agent-files/): read_file, write_file, list_dir, search_text never follow a link out, never read a FIFO
// or device (an error result, never a hang), never write through a hard link; run_command runs an
// argv with no shell — the allow-list names a program (or a program and its first argument), and
// `;`, `|`, `$(…)` are plain bytes of an argument.
import { splitCommand } from "../../config/command.js";
import { type JailedCommand, type RunJail, launchOf } from "../../jail/jail.js";
import { runProcess } from "../../process/runner.js";
import { readTextInside, writeTextInside } from "../../agent-files/files.js";
import { listDirInside, walkFiles } from "../../agent-files/tree.js";

export interface WorkspaceToolOptions {
  root: string;
  allowCommands: readonly string[];
  commandTimeoutMs: number;
  outputCap: number;
  env: Record<string, string>;
  signal: AbortSignal;
  /** run_command starts inside the run's jail (agent.isolation), like any other agent process. */
  jail?: RunJail | undefined;
}

export const WORKSPACE_TOOL_SPECS = [
  {
    name: "read_file",
    description: "Read a text file of the workspace.",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  {
    name: "write_file",
    description: "Write (create or replace) a text file in the workspace.",
    parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] },
  },
  { name: "list_dir", description: "List a directory of the workspace.", parameters: { type: "object", properties: { path: { type: "string" } } } },
  {
    name: "search_text",
    description: "Find lines containing a text in the workspace's files.",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  {
    name: "run_command",
    description:
      "Run an allowed program in the workspace, without a shell: give `argv` (program first) or `command` (split into words; no pipes, redirections or `;`).",
    parameters: {
      type: "object",
      properties: { argv: { type: "array", items: { type: "string" } }, command: { type: "string" } },
    },
  },
] as const;

const SEARCH_FILE_MAX = 1024 * 1024;

/** The argv a run_command call asks for: `argv`, or `command` split into words (quotes honoured, nothing else). */
export function commandArgv(args: Record<string, unknown>): string[] {
  if (Array.isArray(args.argv)) return args.argv.map(String);
  if (typeof args.command === "string") return splitCommand(args.command);
  return [];
}

/** An allow-list entry is a program ("make") or a program and its first argument ("git status"). */
export function allowedBy(allow: readonly string[], argv: readonly string[]): boolean {
  const [program, first] = argv;
  if (!program) return false;
  return allow.some((entry) => {
    const [p, a, ...more] = splitCommand(entry);
    if (!p || more.length > 0) return false;
    return p === program && (a === undefined || a === first);
  });
}

async function searchText(o: WorkspaceToolOptions, needle: string): Promise<string> {
  const files: string[] = [];
  walkFiles(
    o.root,
    (rel, st) => {
      if (st.size < SEARCH_FILE_MAX) files.push(rel);
      return files.length < 5000;
    },
    { skip: [".git", "node_modules"] },
  );
  const hits: string[] = [];
  for (const rel of files) {
    if (hits.length >= 200) break;
    const text = await readTextInside(o.root, rel, { maxBytes: SEARCH_FILE_MAX }).catch(() => null);
    if (text === null) continue;
    text.split("\n").forEach((l, i) => {
      if (l.includes(needle) && hits.length < 200) hits.push(`${rel}:${i + 1}: ${l.slice(0, 200)}`);
    });
  }
  return hits.join("\n") || "(no match)";
}

export async function runWorkspaceTool(name: string, args: Record<string, unknown>, o: WorkspaceToolOptions): Promise<string> {
  const s = (k: string) => (typeof args[k] === "string" ? (args[k] as string) : "");
  switch (name) {
    case "read_file": {
      const text = await readTextInside(o.root, s("path"), { maxBytes: Math.max(o.outputCap, 8 * 1024 * 1024) });
      return text.length > o.outputCap ? `${text.slice(0, o.outputCap)}\n[… truncated]` : text;
    }
    case "write_file": {
      const rel = await writeTextInside(o.root, s("path"), s("content"));
      return `wrote ${rel} (${s("content").length} chars)`;
    }
    case "list_dir":
      return listDirInside(o.root, s("path") || ".").join("\n");
    case "search_text":
      return searchText(o, s("text"));
    case "run_command": {
      const argv = commandArgv(args);
      if (!allowedBy(o.allowCommands, argv))
        throw new Error(`'${argv.slice(0, 2).join(" ") || "(nothing)"}' is not on the allow-list (${o.allowCommands.join(", ") || "empty"})`);
      const started: JailedCommand = o.jail ? await o.jail.command(argv, o.env) : { argv, env: o.env };
      const r = await runProcess({
        ...launchOf(started),
        cwd: o.root,
        jailed: o.jail?.mode === "bwrap",
        timeoutMs: o.commandTimeoutMs,
        signal: o.signal,
        captureLimit: o.outputCap,
      });
      const out = `${r.stdout}${r.stderr}`.slice(-o.outputCap);
      if (r.reason === "spawn_failed") return `error: ${r.spawnError?.message ?? "could not start"}`;
      return `exit ${r.reason === "timeout" ? "timeout" : r.exitCode}\n${out}`;
    }
    default:
      throw new Error(`unknown tool '${name}'`);
  }
}
