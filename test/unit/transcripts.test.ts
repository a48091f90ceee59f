// Every recorded Claude Code / Codex transcript in, the exact events out (snapshot reviewed and
// committed: test/unit/__snapshots__/). A change in translation shows up as a diff here.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { initialClaudeState, translateClaudeLine } from "../../src/agents/claude-code/translate.js";
import { initialCodexState, translateCodexLine } from "../../src/agents/codex/translate.js";
import type { AgentEvent } from "../../src/agents/port.js";

const DIR = "test/fixtures/agent-transcripts";
const NOW = Date.UTC(2026, 10, 30, 1, 25);

function translate(file: string): AgentEvent[] {
  const lines = readFileSync(`${DIR}/${file}`, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("{"));
  const out: AgentEvent[] = [];
  if (file.includes("claude")) {
    let s = initialClaudeState(null);
    for (const l of lines) {
      const r = translateClaudeLine(s, l, NOW);
      s = r.state;
      out.push(...r.events);
    }
  } else {
    let s = initialCodexState();
    for (const l of lines) {
      const r = translateCodexLine(s, l, NOW);
      s = r.state;
      out.push(...r.events);
    }
  }
  return out;
}

describe("translators on every recorded transcript", () => {
  for (const file of readdirSync(DIR)
    .filter((f) => /^(mockrun|norun)-(claude|codex)-.*\.(txt|jsonl)$/.test(f))
    .sort()) {
    it(file, () => {
      expect(translate(file)).toMatchSnapshot();
    });
  }
});
