// Workspace tools for the local-LLM loop, confined to the workspace: read_file, write_file,
// list_dir, search_text, and run_command only for commands on the configured allow-list.
import { mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { runProcess } from "../../process/runner.js";

export interface WorkspaceToolOptions {
  root: string;
  allowCommands: readonly string[];
  commandTimeoutMs: number;
  outputCap: number;
  env: Record<string, string>;
  signal: AbortSignal;
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
    description: "Run an allowed command (first word must be on the allow-list) in the workspace.",
    parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  },
] as const;

/** Resolves a path inside the workspace; refuses anything that escapes it (also through symlinks). */
export function inside(root: string, p: string): string {
  const realRoot = realpathSync(root);
  const abs = resolve(realRoot, p);
  let probe = abs;
  while (!existsSync(probe)) probe = dirname(probe);
  const real = join(realpathSync(probe), relative(probe, abs));
  if (real !== realRoot && !real.startsWith(realRoot + sep)) throw new Error(`path '${p}' is outside the workspace`);
  return real;
}

export async function runWorkspaceTool(name: string, args: Record<string, unknown>, o: WorkspaceToolOptions): Promise<string> {
  const s = (k: string) => (typeof args[k] === "string" ? (args[k] as string) : "");
  switch (name) {
    case "read_file": {
      const text = readFileSync(inside(o.root, s("path")), "utf8");
      return text.length > o.outputCap ? `${text.slice(0, o.outputCap)}\n[… truncated]` : text;
    }
    case "write_file": {
      const p = inside(o.root, s("path"));
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, s("content"));
      return `wrote ${relative(realpathSync(o.root), p)} (${s("content").length} chars)`;
    }
    case "list_dir": {
      const p = inside(o.root, s("path") || ".");
      return readdirSync(p, { withFileTypes: true })
        .map((e) => `${e.name}${e.isDirectory() ? "/" : ""}`)
        .sort()
        .join("\n");
    }
    case "search_text": {
      const needle = s("text");
      const hits: string[] = [];
      const walk = (dir: string) => {
        for (const e of readdirSync(dir, { withFileTypes: true })) {
          if (hits.length >= 200 || e.name === ".git" || e.name === "node_modules") continue;
          const p = join(dir, e.name);
          if (e.isDirectory()) walk(p);
          else if (e.isFile() && statSync(p).size < 1024 * 1024)
            readFileSync(p, "utf8")
              .split("\n")
              .forEach((l, i) => {
                if (l.includes(needle) && hits.length < 200) hits.push(`${relative(o.root, p)}:${i + 1}: ${l.slice(0, 200)}`);
              });
        }
      };
      walk(realpathSync(o.root));
      return hits.join("\n") || "(no match)";
    }
    case "run_command": {
      const command = s("command").trim();
      const first = command.split(/\s+/)[0] ?? "";
      if (!o.allowCommands.includes(first)) throw new Error(`command '${first}' is not on the allow-list (${o.allowCommands.join(", ") || "empty"})`);
      const r = await runProcess({
        argv: ["/bin/sh", "-c", command],
        cwd: o.root,
        env: o.env,
        timeoutMs: o.commandTimeoutMs,
        signal: o.signal,
        captureLimit: o.outputCap,
      });
      const out = `${r.stdout}${r.stderr}`.slice(-o.outputCap);
      return `exit ${r.reason === "timeout" ? "timeout" : r.exitCode}\n${out}`;
    }
    default:
      throw new Error(`unknown tool '${name}'`);
  }
}
