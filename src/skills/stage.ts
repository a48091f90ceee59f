// A run's own view of its task's skills: each resolved skill's folder copied into the run dir (regular
// files and folders only — links and devices are left out, so nothing in a skill points the agent
// elsewhere), bounded in depth and bytes; and a skill's text for agents that take it in their prompt.
// The copies live where the Agent Skills layout puts a user's skills, under the run's own HOME
// (`<run dir>/home/.agents/skills/<name>/`): Codex finds them there as skills of its user scope, and
// the same `.agents` folder is a Claude Code plugin root (`skills/<name>/SKILL.md` + its manifest).
import { constants } from "node:fs";
import { copyFile, lstat, mkdir, open, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { ResolvedSkill } from "./resolve.js";

const MAX_DEPTH = 4;
/** The run dir's folder that is the agent's HOME where a kind takes one of the run's own (Codex). */
export const RUN_HOME = "home";
/** The run dir's folder of staged skills: `$HOME/.agents` of the run's HOME, a Claude Code plugin root. */
export const SKILLS_FOLDER = join(RUN_HOME, ".agents");
/** What one run's skills may copy in total. */
export const SKILLS_MAX_BYTES = 16 * 1024 * 1024;

export class SkillTooLarge extends Error {
  constructor(readonly skill: string) {
    super(`the skill ${skill} is larger than ${SKILLS_MAX_BYTES / 1024 / 1024} MiB: not staged`);
    this.name = "SkillTooLarge";
  }
}

/** Copies each skill to `<dest>/<name>/`; returns the staged folders. */
export async function stageSkills(skills: readonly ResolvedSkill[], dest: string): Promise<string[]> {
  const budget = { bytes: SKILLS_MAX_BYTES };
  const out: string[] = [];
  for (const s of skills) {
    const to = join(dest, s.name);
    await copyTree(s.dir, to, 0, budget, s.name);
    out.push(to);
  }
  return out;
}

async function copyTree(from: string, to: string, depth: number, budget: { bytes: number }, skill: string): Promise<void> {
  await mkdir(to, { recursive: true, mode: 0o700 });
  if (depth > MAX_DEPTH) return;
  for (const e of await readdir(from, { withFileTypes: true })) {
    const src = join(from, e.name);
    const st = await lstat(src);
    if (st.isDirectory()) await copyTree(src, join(to, e.name), depth + 1, budget, skill);
    else if (st.isFile()) {
      budget.bytes -= st.size;
      if (budget.bytes < 0) throw new SkillTooLarge(skill);
      await copyFile(src, join(to, e.name), constants.COPYFILE_EXCL);
    }
  }
}

/** A skill's SKILL.md as text (at most `maxBytes`; a link or a non-file is no text). */
export async function skillText(s: ResolvedSkill, maxBytes = 64 * 1024): Promise<string> {
  const fh = await open(s.file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!(await fh.stat()).isFile()) return "";
    const buf = Buffer.alloc(maxBytes);
    const { bytesRead } = await fh.read(buf, 0, maxBytes, 0);
    return buf.subarray(0, bytesRead).toString("utf8");
  } finally {
    await fh.close();
  }
}

/** The task's skills as one prompt section, for agents that take skills as text (Codex, the local loop). */
export async function skillsSection(skills: readonly ResolvedSkill[], maxBytes = 64 * 1024): Promise<string> {
  if (skills.length === 0) return "";
  const parts = await Promise.all(skills.map(async (s) => `<skill name="${s.name}">\n${(await skillText(s, maxBytes)).trim()}\n</skill>`));
  return `The task asks for these skills; follow them where they apply:\n\n${parts.join("\n\n")}`;
}

/** The prompt line that names the task's skills for an agent that loads them itself (Codex: `$name` invokes a skill). */
export function skillsInvocation(skills: readonly Pick<ResolvedSkill, "name">[]): string {
  if (skills.length === 0) return "";
  // Each mention on a line of its own: a `$name` followed by punctuation is not read as a mention.
  return `The task asks for these skills (installed for this run); use them where they apply:\n${skills.map((s) => `- $${s.name}`).join("\n")}\n`;
}

/** Makes the staged skills folder a Claude Code plugin (`--plugin-dir`): its manifest next to `skills/`. */
export async function writePluginManifest(root: string): Promise<void> {
  await mkdir(join(root, ".claude-plugin"), { recursive: true, mode: 0o700 });
  const manifest = { name: "task-skills", version: "1.0.0", description: "The skills the Hermes Kanban task asks for (staged by hermes-kanban-bridge)." };
  const fh = await open(join(root, ".claude-plugin", "plugin.json"), "wx", 0o600);
  try {
    await fh.writeFile(`${JSON.stringify(manifest, null, 2)}\n`);
  } finally {
    await fh.close();
  }
}
