// Where this seat looks a task's skills up, in order: agent.skillDirs, the board's Hermes home
// (`$HERMES_HOME/skills`, as the CLI is told it), then the skills bundled with a local Hermes install
// (`<launcher's folder>/skills`). A board reached through ssh has no local install to read.
import { realpathSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join } from "node:path";
export function skillRootsFor(o: { dirs: readonly string[]; hermesHome: string; command: readonly string[] }, env: NodeJS.ProcessEnv): string[] {
  const roots: string[] = [...o.dirs];
  roots.push(join(o.hermesHome, "skills"));
  const launcher = localLauncher(o.command, env);
  if (launcher) roots.push(join(dirname(launcher), "skills"));
  return [...new Set(roots)];
}

/** The Hermes launcher file a local command runs (`hermes` on PATH, or `python3 /x/hermes`); null for ssh. */
function localLauncher(command: readonly string[], env: NodeJS.ProcessEnv): string | null {
  const [prog, ...rest] = command;
  if (!prog || prog === "ssh" || prog.endsWith("/ssh")) return null;
  const script = /(^|\/)python[0-9.]*$/.test(prog) ? rest.find((a) => !a.startsWith("-")) : prog;
  if (!script) return null;
  const candidates = isAbsolute(script) || script.includes("/") ? [script] : (env.PATH ?? "").split(delimiter).map((d) => join(d, script));
  for (const p of candidates) {
    try {
      // sync-io: the Hermes launcher the operator configured, read once at start (not an agent path)
      if (statSync(p).isFile()) return realpathSync(p);
    } catch {
      // not here
    }
  }
  return null;
}
