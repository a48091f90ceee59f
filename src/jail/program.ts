// Where a program the jail runs lives, and what must be visible for it to start: its absolute path (as the
// kernel would find it on the agent's PATH), the package tree it sits in, the bridge's own Node program.
import { existsSync, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve, sep } from "node:path";

/** An absolute program path for argv[0] (searched on the agent's PATH as the kernel would), or null. */
export function resolveProgram(program: string, path: string | undefined, cwd: string): string | null {
  if (program.includes("/")) return resolve(cwd, program);
  for (const dir of (path ?? "").split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const p = join(dir, program);
    try {
      if (statSync(p).isFile()) return p;
    } catch {
      // next
    }
  }
  return null;
}

export const safeReal = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/**
 * What must be visible for a program to start: the top `node_modules` it lives in (an npm-installed
 * CLI finds its siblings there: Codex's native binary is another package), else the file itself — never
 * the folder it sits in (a `~/bin/agent` shows the agent that file, not the bridge's HOME).
 */
export function programMounts(absolute: string): string[] {
  const out = new Set<string>([absolute]);
  for (const p of [absolute, safeReal(absolute)]) {
    const parts = p.split(sep);
    const i = parts.indexOf("node_modules");
    out.add(i > 0 ? parts.slice(0, i + 1).join(sep) : p);
  }
  return [...out];
}

/** The paths a Node program of the bridge needs (the task-tools server): the node binary itself and the package's dist and modules. */
export function nodeMounts(packageRoot: string): string[] {
  const node = safeReal(process.execPath);
  return [node, join(packageRoot, "package.json"), join(packageRoot, "dist"), join(packageRoot, "node_modules")].filter((p) => existsSync(p));
}
