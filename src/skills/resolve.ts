// The skills a task names (`create --skill S`), found where the board's Hermes keeps them: the
// operator's agent.skillDirs first, then `$HERMES_HOME/skills`, then the skills bundled with the Hermes
// install — each searched for `<name>/SKILL.md` a few levels deep (Hermes groups them by category:
// `skills/<category>/<name>/SKILL.md`). A skill name is task text: only a plain name is looked up (no
// separators, no dot-dot), links are never followed, the search is bounded, and a skill's files are
// read by size-checked handles (staging, prompt text) — never a reason to read outside these roots.
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

export interface ResolvedSkill {
  name: string;
  /** The skill's folder (holds SKILL.md and what it refers to). */
  dir: string;
  /** Its SKILL.md. */
  file: string;
}

export interface SkillLookup {
  found: ResolvedSkill[];
  /** Names no root has (or that are not plain names), in the task's order. */
  missing: string[];
}

/** A name the lookup accepts: what Hermes's own skill folders are called. */
export const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const MAX_DEPTH = 3;
const MAX_DIRS = 5000;

/** Finds each named skill in the first root that has it. */
export async function resolveSkills(names: readonly string[], roots: readonly string[]): Promise<SkillLookup> {
  const found: ResolvedSkill[] = [];
  const missing: string[] = [];
  const indexes = new Map<string, Map<string, string>>();
  for (const name of [...new Set(names)]) {
    if (!SKILL_NAME.test(name) || name.includes("..")) {
      missing.push(name);
      continue;
    }
    let hit: ResolvedSkill | null = null;
    for (const root of roots) {
      let index = indexes.get(root);
      if (!index) {
        index = await indexRoot(root);
        indexes.set(root, index);
      }
      const dir = index.get(name);
      if (dir) {
        hit = { name, dir, file: join(dir, "SKILL.md") };
        break;
      }
    }
    if (hit) found.push(hit);
    else missing.push(name);
  }
  return { found, missing };
}

/** Every `<name>/SKILL.md` under `root` (the shallowest wins), without following links. */
async function indexRoot(root: string): Promise<Map<string, string>> {
  const index = new Map<string, string>();
  let budget = MAX_DIRS;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH || budget-- <= 0) return;
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    const subdirs = entries.filter((e) => e.isDirectory() && !e.name.startsWith("."));
    for (const e of subdirs) {
      const child = join(dir, e.name);
      const skill = await lstat(join(child, "SKILL.md")).catch(() => null);
      if (skill?.isFile() && !index.has(e.name)) index.set(e.name, child);
    }
    for (const e of subdirs) await walk(join(dir, e.name), depth + 1);
  };
  const top = await lstat(root).catch(() => null);
  if (top?.isDirectory()) await walk(root, 1);
  return index;
}
