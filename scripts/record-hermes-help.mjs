#!/usr/bin/env node
// Records the real Hermes CLI's help texts (80 columns, as a pipe sees them) into
// src/emulator/help-text.ts (0.20.0) or, for a 0.21 CLI, src/emulator/help-text-021.ts (the emulator's
// 0.21 mode), so the emulator prints the same usage blocks and help as that Hermes.
// Usage: HERMES_BIN="python3 /path/to/hermes" node scripts/record-hermes-help.mjs
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = process.env.HERMES_BIN;
if (!bin) {
  console.error("HERMES_BIN is not set (see DEVELOPERS.md)");
  process.exit(2);
}
const [cmd, ...pre] = bin.split(/\s+/);
const home = mkdtempSync(join(tmpdir(), "hkb-help-"));
const env = { PATH: process.env.PATH, HOME: home, HERMES_HOME: home };
delete env.COLUMNS;
const run = (args) => {
  try {
    return execFileSync(cmd, [...pre, ...args], { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    return err.stdout ?? "";
  }
};
run(["kanban", "boards", "create", "b"]);
const version = run(["--version"]).split("\n")[0];
const line021 = /v0\.21\./.test(version);
const VERBS = ["create", "list", "show", "context", "claim", "heartbeat", "comment", "attach", "attachments", "complete", "block", "schedule", "unblock", "reclaim", "archive", "dispatch", "watch", "boards", "request-review", "reopen-review", "set-model", ...(line021 ? ["request-changes"] : [])];
const texts = { top: run(["--help"]), kanban: run(["kanban", "--help"]) };
for (const v of VERBS) texts[v] = run(["kanban", "--board", "b", v, "--help"]);
const file = line021 ? "src/emulator/help-text-021.ts" : "src/emulator/help-text.ts";
const body = Object.entries(texts)
  .map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},`)
  .join("\n");
writeFileSync(
  file,
  line021
    ? `// Recorded from the real CLI (${version}) by scripts/record-hermes-help.mjs: help and usage texts
// (80 columns) of the emulator's 0.21 mode (HERMES_EMULATOR_COMPAT=0.21). Data, not code.
export const HELP_021: Record<string, string> = {
${body}
};
`
    : `// Recorded from the real CLI (${version}) by scripts/record-hermes-help.mjs: help and usage texts
// (80 columns), so the emulator's usage errors and --help match Hermes's byte for byte. Data, not code.
export const HELP: Record<string, string> = {
${body}
};
`,
);
console.log(`recorded ${Object.keys(texts).length} help texts from ${version} into ${file}`);
