#!/usr/bin/env node
// The deploy lane runs docs/deploy.md's recipes as written: a shell block the page marks with
// `<!-- deploy-lane: NAME -->` on the line before its ```sh fence is printed here, exactly as the page has it.
//   page-block.mjs NAME [page]      (exit 1, naming it, when the page has no such block)
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export function pageBlock(text, name) {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.trim() === `<!-- deploy-lane: ${name} -->`);
  if (at < 0 || lines[at + 1]?.trim() !== "```sh") return null;
  const end = lines.findIndex((l, i) => i > at + 1 && l.trim() === "```");
  return end < 0 ? null : `${lines.slice(at + 2, end).join("\n")}\n`;
}

export const blockNames = (text) => [...text.matchAll(/^<!-- deploy-lane: ([a-z0-9-]+) -->$/gm)].map((m) => m[1]);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [name, page = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "docs", "deploy.md")] = process.argv.slice(2);
  const block = name ? pageBlock(readFileSync(page, "utf8"), name) : null;
  if (block === null) {
    process.stderr.write(`page-block: ${page} has no block '${name ?? ""}' (<!-- deploy-lane: ${name ?? "NAME"} --> before a \`\`\`sh fence)\n`);
    process.exit(1);
  }
  process.stdout.write(block);
}
