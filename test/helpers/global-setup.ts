// Integration tests run the compiled emulator and CLI (real processes): build when `dist` is missing or
// older than any source file (or the build script, or a tsconfig), so `npx vitest run <file>` after an
// edit tests the edit (the build as `npm run build` makes it: scripts/build.mjs).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const newest = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
    const p = join(dir, e.name);
    return Math.max(m, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }, 0);

export default function setup(): void {
  const built = ["dist/emulator/bin.js", "dist/cli/main.js"];
  const inputs = Math.max(newest("src"), ...["scripts/build.mjs", "tsconfig.json", "tsconfig.build.json"].map((f) => statSync(f).mtimeMs));
  const stale = built.some((f) => !existsSync(f)) || Math.min(...built.map((f) => statSync(f).mtimeMs)) < inputs;
  if (stale) execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
}
