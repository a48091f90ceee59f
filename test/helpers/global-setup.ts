// Integration tests run the compiled emulator and CLI (real processes): build once if missing.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

export default function setup(): void {
  if (!existsSync("dist/emulator/bin.js") || !existsSync("dist/cli/main.js")) {
    execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
  }
}
