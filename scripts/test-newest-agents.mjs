#!/usr/bin/env node
// `npm run test:newest-agents`: the agent CLIs users install tomorrow, tried today. Installs npm's newest Claude Code
// and Codex (or the versions named: --claude 2.1.197 --codex 0.171.0) into a scratch prefix, runs the real-CLI agent
// lane against them (test/e2e on the emulator; with HERMES_BIN also test/real on that Hermes), and prints a table:
// each CLI's version against the tested range (src/agents/tested.ts), then each case held or not. Needs the npm
// registry (not part of `npm test`). Exit 1 when a case did not hold.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const args = process.argv.slice(2);
const pick = (flag, fallback) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : fallback);
const want = { claude: pick("--claude", "latest"), codex: pick("--codex", "latest") };
const keep = args.includes("--keep");
const root = resolve(import.meta.dirname, "..");
const run = (argv, o = {}) => spawnSync(argv[0], argv.slice(1), { encoding: "utf8", cwd: root, ...o });

// The tested ranges, read from the built bridge (npm run build first), so the table and the seats say the same.
if (run(["node", "scripts/build.mjs", "--noCheck"]).status !== 0) throw new Error("the build failed (npm run build)");
const { TESTED_VERSIONS, judgeVersion } = await import(join(root, "dist/agents/tested.js"));

const prefix = mkdtempSync(join(tmpdir(), "hkb-newest-agents-"));
try {
  const pkgs = [`@anthropic-ai/claude-code@${want.claude}`, `@openai/codex@${want.codex}`];
  process.stdout.write(`installing ${pkgs.join(" ")} into ${prefix} …\n`);
  const inst = run(["npm", "install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "--foreground-scripts", ...pkgs], { stdio: "inherit" });
  if (inst.status !== 0) throw new Error(`npm install failed (exit ${inst.status})`);
  const bins = { claude: join(prefix, "node_modules/.bin/claude"), codex: join(prefix, "node_modules/.bin/codex") };
  const rows = [
    ["Claude Code", bins.claude, TESTED_VERSIONS.claudeCode],
    ["Codex", bins.codex, TESTED_VERSIONS.codex],
  ].map(([name, bin, range]) => {
    const printed = `${run([bin, "--version"]).stdout ?? ""}`;
    return { name, verdict: judgeVersion(name, printed, range), range };
  });

  const files = ["test/e2e", ...(process.env.HERMES_BIN ? ["test/real"] : [])];
  const report = join(prefix, "vitest.json");
  process.stdout.write(`running ${files.join(" and ")} with them${process.env.HERMES_BIN ? ` (Hermes: ${process.env.HERMES_BIN})` : " (the emulator board)"} …\n`);
  run(["npx", "vitest", "run", ...files, "--reporter=dot", "--reporter=json", `--outputFile.json=${report}`], {
    stdio: "inherit",
    env: { ...process.env, HKB_CLAUDE_BIN: bins.claude, HKB_CODEX_BIN: bins.codex },
  });
  const results = JSON.parse(readFileSync(report, "utf8"));

  const line = (cols, widths) => `${cols.map((c, i) => String(c).padEnd(widths[i] ?? 0)).join("  ")}\n`;
  process.stdout.write("\nCLI           installed   tested            verdict\n");
  for (const r of rows)
    process.stdout.write(line([r.name, r.verdict.version ?? "?", `${r.range.min}–${r.range.pinned}`, r.verdict.state], [12, 10, 16]));
  process.stdout.write("\nheld  case\n");
  let failed = 0;
  for (const file of results.testResults ?? [])
    for (const t of file.assertionResults ?? []) {
      if (t.status === "skipped" || t.status === "pending") continue;
      const held = t.status === "passed";
      if (!held) failed += 1;
      process.stdout.write(`${held ? "yes " : "NO  "}  ${file.name.replace(`${root}/`, "")} › ${t.title}\n`);
    }
  process.stdout.write(`\n${failed === 0 ? "every case held" : `${failed} case(s) did not hold`} with ${rows.map((r) => `${r.name} ${r.verdict.version ?? "?"}`).join(" and ")}\n`);
  process.exitCode = failed === 0 ? 0 : 1;
} finally {
  if (!keep) rmSync(prefix, { recursive: true, force: true });
}
