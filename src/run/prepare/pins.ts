// A task's pins — the model (and provider) and the skills its creator chose — checked against this seat
// before the agent starts: a provider the seat's agent cannot run, or a skill this host does not have,
// ends in a templated block naming both sides, never a run on the seat's defaults without a word.
import type { AgentAdapter, RunPins } from "../../agents/port.js";
import { join } from "node:path";
import type { Task } from "../../board/port.js";
import type { Decision } from "../../result/decision.js";
import { resolveSkills } from "../../skills/resolve.js";
import { SKILLS_FOLDER, skillsSection, stageSkills, writePluginManifest } from "../../skills/stage.js";
import { blockFor } from "../blocks/table.js";

export async function checkPins(task: Task, agent: AgentAdapter, skillRoots: readonly string[]): Promise<{ pins: RunPins } | { decision: Decision }> {
  const { model, provider } = task.pins;
  if (model && provider && agent.providers && !agent.providers.includes(provider.toLowerCase()))
    return {
      decision: blockFor("pinned_provider", { model, provider }, { name: agent.name, providers: agent.providers }),
    };
  const lookup = await resolveSkills(task.skills, skillRoots);
  if (lookup.missing.length > 0)
    return {
      decision: blockFor("missing_skills", lookup.missing, skillRoots.length > 0),
    };
  return { pins: { model, provider, skills: lookup.found } };
}

/**
 * The run's own copy of its skills (`<run dir>/home/.agents/skills/<name>/`): what the agent is shown,
 * inside its jail, never its host folders. A skill too large to copy blocks like a missing one.
 */
export async function stagePins(pins: RunPins, runDir: string, o: { plugin: boolean }): Promise<{ pins: RunPins } | { decision: Decision }> {
  if (pins.skills.length === 0) return { pins };
  try {
    const root = join(runDir, SKILLS_FOLDER);
    const dirs = await stageSkills(pins.skills, join(root, "skills"));
    // Only for a kind that loads it: Codex reads a plugin manifest too, and would rename the skills after it.
    if (o.plugin) await writePluginManifest(root);
    const skills = pins.skills.map((s, i) => ({ name: s.name, dir: dirs[i] ?? s.dir, file: join(dirs[i] ?? s.dir, "SKILL.md") }));
    return { pins: { ...pins, skills, staged: { root, text: await skillsSection(skills) } } };
  } catch (err) {
    return {
      decision: blockFor("skills_unstaged", err),
    };
  }
}
