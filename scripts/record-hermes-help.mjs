#!/usr/bin/env node
// Records the real Hermes CLI's help texts (80 columns, as a pipe sees them) into
// src/emulator/help-text.ts, so the emulator prints the same usage blocks and help as Hermes 0.20.0.
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
const VERBS = ["create", "list", "show", "context", "claim", "heartbeat", "comment", "attach", "attachments", "complete", "block", "unblock", "reclaim", "archive", "dispatch", "watch", "boards"];
const texts = { top: run(["--help"]), kanban: run(["kanban", "--help"]) };
for (const v of VERBS) texts[v] = run(["kanban", "--board", "b", v, "--help"]);
const version = run(["--version"]).split("\n")[0];
const body = Object.entries(texts)
  .map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},`)
  .join("\n");
writeFileSync(
  "src/emulator/help-text.ts",
  `// Recorded from the real CLI (${version}) by scripts/record-hermes-help.mjs: help and usage texts
// (80 columns), so the emulator's usage errors and --help match Hermes's byte for byte. Data, not code.
export const HELP: Record<string, string> = {
${body}
};

/** The usage block of a parser's help (what argparse prints above "<prog>: error: …"). */
export function usageBlock(key: string): string | undefined {
  const h = HELP[key];
  return h === undefined ? undefined : h.slice(0, h.indexOf("\\n\\n") === -1 ? h.length : h.indexOf("\\n\\n"));
}
`,
);
console.log(`recorded ${Object.keys(texts).length} help texts from ${version}`);
