// `hermes-bridge skill install --claude | --codex | --hermes [--dir <d>]`: the agent protocol cheat sheet
// (skills/SKILL.md, an Agent Skill with name + description front matter) put where each agent looks for
// its skills — `<config dir>/skills/hermes-kanban-bridge/SKILL.md` of Claude Code (CLAUDE_CONFIG_DIR,
// ~/.claude), Codex (CODEX_HOME, ~/.codex) or Hermes (HERMES_HOME, ~/.hermes). `--dir` names the config dir.
// The target is written without ever following a link (an agent that once had a config dir could have
// planted one — to `~/.ssh/authorized_keys`), and never inside a seat's state dir: no run's CLI home is
// an install target, the bridge makes those fresh for each run.
import { lstatSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { defaultStateRoot } from "../config/schema.js";
import { bundledFile } from "../config/paths.js";
import { StateWriteError, writeStateFile } from "../state/atomic.js";
import { ExitError } from "../errors/index.js";
import { isInside, realPathOf } from "../agent-files/contain.js";

export const SKILL_NAME = "hermes-kanban-bridge";

const TARGETS = {
  claude: { env: "CLAUDE_CONFIG_DIR", home: ".claude" },
  codex: { env: "CODEX_HOME", home: ".codex" },
  hermes: { env: "HERMES_HOME", home: ".hermes" },
} as const;
export type SkillTarget = keyof typeof TARGETS;

/** Makes `parts` below `base` (a real folder), refusing any link on the way: a link is never followed. */
function mkdirNoLinks(base: string, parts: readonly string[]): string {
  let p = base;
  for (const part of parts) {
    p = join(p, part);
    let st: ReturnType<typeof lstatSync> | null = null;
    try {
      st = lstatSync(p);
    } catch {
      st = null;
    }
    if (st === null) mkdirSync(p, { mode: 0o755 });
    else if (st.isSymbolicLink())
      throw new ExitError(2, `skill install: ${p} is a symbolic link: not followed (install into a real folder, or remove the link)`);
    else if (!st.isDirectory()) throw new ExitError(2, `skill install: ${p} is not a folder`);
  }
  return p;
}

/** Writes `file` through a new temp file (never through a link, never into an existing one), then moves it in place. */
function writeNew(file: string, text: string): void {
  // The temp is opened O_EXCL (a link planted at its name is refused); the rename replaces a link at `file`
  // itself, it never writes where the link leads.
  try {
    writeStateFile(file, text, { mode: 0o644 });
  } catch (err) {
    throw err instanceof StateWriteError ? err.cause : err; // the file system's own word, as the CLI reports any
  }
}

/** Installs the skill for each target; returns the files written. */
export function installSkill(o: { targets: SkillTarget[]; dir?: string | undefined; stateDirs?: readonly string[] }, env: NodeJS.ProcessEnv): string[] {
  if (o.targets.length === 0) throw new ExitError(2, "skill install: name at least one of --claude, --codex, --hermes");
  if (o.dir !== undefined && o.targets.length > 1)
    throw new ExitError(2, "skill install: --dir names one agent's config dir: give one of --claude, --codex, --hermes with it");
  const text = readFileSync(bundledFile("skills", "SKILL.md"), "utf8");
  const seats = [defaultStateRoot(), ...(o.stateDirs ?? [])];
  return o.targets.map((t) => {
    const base = o.dir ?? env[TARGETS[t].env] ?? join(homedir(), TARGETS[t].home);
    const inState = seats.find((s) => isInside(s, base));
    if (inState)
      throw new ExitError(
        2,
        `skill install: ${base} is inside the seats' state (${inState}): the bridge makes each run's CLI home fresh — give the seat skills with agent.skillDirs or its agent.cliHome template instead`,
      );
    // The config dir is the operator's (followed as the shell would); below it, nothing is followed.
    mkdirSync(base, { recursive: true, mode: 0o755 });
    const dir = mkdirNoLinks(realPathOf(base), ["skills", SKILL_NAME]);
    const file = join(dir, "SKILL.md");
    writeNew(file, text);
    return file;
  });
}
