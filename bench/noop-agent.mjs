#!/usr/bin/env node
// The benchmark agent (both bridges run it): "BENCH:noop" writes a complete outcome at once;
// "BENCH:flood:<seconds>" streams ~50 MB/min to stdout for that long first.
import { readFileSync, writeFileSync } from "node:fs";

const ctx = process.env.HERMES_BRIDGE_CONTEXT ? JSON.parse(readFileSync(process.env.HERMES_BRIDGE_CONTEXT, "utf8")) : null;
const body = ctx?.task?.body ?? process.env.BENCH_BODY ?? "";
const flood = /BENCH:flood:(\d+)/.exec(body);
if (flood) {
  const until = Date.now() + Number(flood[1]) * 1000;
  const line = `${"y".repeat(1023)}\n`;
  const chunk = line.repeat(85); // ~87 KB every 100 ms ≈ 52 MB/min
  while (Date.now() < until) {
    if (!process.stdout.write(chunk)) await new Promise((r) => process.stdout.once("drain", r));
    await new Promise((r) => setTimeout(r, 100));
  }
}
if (process.env.HERMES_BRIDGE_RESULT)
  writeFileSync(process.env.HERMES_BRIDGE_RESULT, JSON.stringify({ outcome: "complete", summary: "noop", result: { ok: true, status: "ok", items: 1 } }));
