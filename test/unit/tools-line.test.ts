// The card's line for the task tools' budget (agent.budget.tools, issue 50 finding 6) as an operator reads it:
// what was refused, under which key and its value, and what to do when a task really needs more.
import { expect, it } from "vitest";
import { toolsLine } from "../../src/run/close/close-text.js";
import type { RunStory } from "../../src/run/record.js";
import { DEFAULT_TOOL_LIMITS, ToolBudget } from "../../src/tools/budget.js";

it("names what was refused and the keys, that the agent was told, and how a task that needs more gets it", () => {
  const tools = new ToolBudget({ ...DEFAULT_TOOL_LIMITS, comments: 2 }, () => 0);
  for (let i = 0; i < 5; i += 1) tools.comment(100);
  // the line reads only the story's tool budget
  const story = { tools } as Partial<RunStory> as RunStory;
  const line = toolsLine(story);
  expect(line).toMatch(/^task tools past this run's budget \(agent\.budget\.tools\), refused: 3 comment\(s\) \(comments: 2, commentBytes: 100000\)/);
  expect(line).toContain("the agent was told each time");
  expect(line).toContain("raise them in the seat's agent.budget.tools and restart the seat");
  // nothing refused: no line
  expect(toolsLine({ ...story, tools: new ToolBudget(DEFAULT_TOOL_LIMITS, () => 0) })).toBe("");
});
