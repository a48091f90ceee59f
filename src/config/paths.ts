// Where the package's own files (prompts/, skills/) live, from src/ (tests) or dist/ (installed).
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1) {
    const pj = join(dir, "package.json");
    if (existsSync(pj) && (JSON.parse(readFileSync(pj, "utf8")) as { name?: string }).name === "hermes-kanban-bridge") {
      cached = dir;
      return dir;
    }
    dir = dirname(dir);
  }
  throw new Error("cannot locate the hermes-kanban-bridge package root");
}

export function bundledFile(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}
