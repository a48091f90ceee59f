// Every recorded Claude Code / Codex transcript in, the exact events out (snapshot reviewed and
// committed: test/unit/__snapshots__/). A change in translation shows up as a diff here.
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { initialClaudeState, translateClaudeLine } from "../../src/agents/claude-code/translate.js";
import { initialCodexState, translateCodexLine } from "../../src/agents/codex/translate.js";
import type { AgentEvent } from "../../src/agents/port.js";

import { DIR, jsonLines, recordedAt } from "../helpers/agent-transcripts.js";

function translate(file: string): AgentEvent[] {
  const lines = jsonLines(file);
  const NOW = recordedAt(file);
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
