// `hermes-bridge skill install --claude | --codex | --hermes [--dir <d>]`: the agent protocol cheat sheet
// (skills/SKILL.md, an Agent Skill with name + description front matter) put where each agent looks for
// its skills — `<config dir>/skills/hermes-kanban-bridge/SKILL.md` of Claude Code (CLAUDE_CONFIG_DIR,
// ~/.claude), Codex (CODEX_HOME, ~/.codex) or Hermes (HERMES_HOME, ~/.hermes). `--dir` names the config dir.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { bundledFile } from "../config/paths.js";
import { ExitError } from "../errors/index.js";

export const SKILL_NAME = "hermes-kanban-bridge";

const TARGETS = {
  claude: { env: "CLAUDE_CONFIG_DIR", home: ".claude" },
  codex: { env: "CODEX_HOME", home: ".codex" },
  hermes: { env: "HERMES_HOME", home: ".hermes" },
} as const;
export type SkillTarget = keyof typeof TARGETS;

/** Installs the skill for each target; returns the files written. */
export function installSkill(o: { targets: SkillTarget[]; dir?: string | undefined }, env: NodeJS.ProcessEnv): string[] {
  if (o.targets.length === 0) throw new ExitError(2, "skill install: name at least one of --claude, --codex, --hermes");
  if (o.dir !== undefined && o.targets.length > 1)
    throw new ExitError(2, "skill install: --dir names one agent's config dir: give one of --claude, --codex, --hermes with it");
  const text = readFileSync(bundledFile("skills", "SKILL.md"), "utf8");
  return o.targets.map((t) => {
    const base = o.dir ?? env[TARGETS[t].env] ?? join(homedir(), TARGETS[t].home);
    const dir = join(base, "skills", SKILL_NAME);
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    const file = join(dir, "SKILL.md");
    writeFileSync(file, text, { mode: 0o644 });
    return file;
  });
}
