// The agent CLIs the tests drive: the pinned devDependencies (agents/tested.ts), or the installs named by
// HKB_CLAUDE_BIN / HKB_CODEX_BIN (npm run test:newest-agents runs the real-CLI lane on npm's newest this way).
import { resolve } from "node:path";

export const CLAUDE = process.env.HKB_CLAUDE_BIN ?? resolve("node_modules/.bin/claude");
export const CODEX = process.env.HKB_CODEX_BIN ?? resolve("node_modules/.bin/codex");
