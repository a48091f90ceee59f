// A task's pins — the model (and provider) and the skills its creator chose — checked against this seat
// before the agent starts: a provider the seat's agent cannot run, or a skill this host does not have,
// ends in a templated block naming both sides, never a run on the seat's defaults without a word.
import type { AgentAdapter, RunPins } from "../../agents/port.js";
import { join } from "node:path";
import type { Task } from "../../board/port.js";
import { describeError } from "../../errors/index.js";
import { type Decision, blockDecision } from "../../result/decision.js";
import { resolveSkills } from "../../skills/resolve.js";
import { SKILLS_FOLDER, skillsSection, stageSkills, writePluginManifest } from "../../skills/stage.js";

export async function checkPins(task: Task, agent: AgentAdapter, skillRoots: readonly string[]): Promise<{ pins: RunPins } | { decision: Decision }> {
  const { model, provider } = task.pins;
  if (model && provider && agent.providers && !agent.providers.includes(provider.toLowerCase()))
    return {
      decision: blockDecision(
        "environment",
        `The agent was not started: the task is pinned to the model ${model} of the provider ${provider}, and this seat's agent (${agent.name}) runs only ${agent.providers.join(" / ")} models.`,
        [`move the task to a seat whose agent runs ${provider} models`, "clear or change the pin (`hermes kanban set-model`) and unblock"],
        `Assign the task to a seat that runs ${provider}, or change its model pin.`,
        "Reassign the task or change its model pin, then unblock.",
      ),
    };
  const lookup = await resolveSkills(task.skills, skillRoots);
  if (lookup.missing.length > 0)
    return {
      decision: blockDecision(
        "environment",
        // Where it looked is the host's business (the Hermes home, the install): the card names the kinds of places, never their paths.
        `The agent was not started: the task needs the skill(s) ${lookup.missing.join(", ")}, which this seat does not have (it looked for <name>/SKILL.md in ${skillRoots.length ? "its agent.skillDirs, the board's Hermes home and the Hermes install's skills" : "no skill folder"}; the seat's host knows which folders those are).`,
        ["install the skill on this seat (agent.skillDirs or the Hermes home's skills) and unblock", "remove the skill from the task and unblock"],
        "Install the missing skill where this seat looks, then unblock.",
        `Install ${lookup.missing.join(", ")} for this seat, or drop it from the task; then unblock.`,
      ),
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
      decision: blockDecision(
        "environment",
        `The agent was not started: the task's skills could not be given to the run: ${describeError(err)}`,
        ["make the skill smaller (its folder is copied into each run)", "remove the skill from the task and unblock"],
        "Trim the skill's folder to what the agent needs, then unblock.",
        "Fix the skill named above, then unblock.",
      ),
    };
  }
}
