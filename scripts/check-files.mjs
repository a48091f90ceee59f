#!/usr/bin/env node
// Files stay small (.ts and .mts alike): a source file over the limit is a role that wants splitting. Lists every offender
// with its line count and exits 1, so `npm test` fails on it.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const LIMIT = 300;
const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
const over = walk("src")
  .filter((f) => /\.m?ts$/.test(f))
  .map((f) => ({ f, n: readFileSync(f, "utf8").split("\n").length - 1 }))
  .filter(({ n }) => n > LIMIT);
for (const { f, n } of over) console.error(`${f}: ${n} lines (limit ${LIMIT}) — split it by role`);
if (over.length) process.exit(1);
console.log(`file sizes ok (every src/**/*.ts and *.mts ≤ ${LIMIT} lines)`);
