// The state dir's layout is named in one module (src/state/layout.ts): no other source file spells a
// state file's name, or joins a state dir with an entry's name by hand.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { STATE_LAYOUT, statePath } from "../../src/state/layout.js";

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return p === join("src", "emulator") ? [] : sources(p);
    return p.endsWith(".ts") && p !== join("src", "state", "layout.ts") ? [p] : [];
  });
}

describe("the state dir's layout", () => {
  const files = sources("src").map((f) => ({ f, text: readFileSync(f, "utf8") }));

  it("no other module spells a state file's name", () => {
    const names = Object.values(STATE_LAYOUT).filter((n) => n.includes(".") || n.includes("/"));
    expect(names.length).toBeGreaterThan(5);
    const found = files.flatMap(({ f, text }) => names.filter((n) => text.includes(`"${n}"`) || text.includes(`'${n}'`)).map((n) => `${f}: ${n}`));
    expect(found).toEqual([]);
  });

  it("no other module joins a state dir with an entry by hand", () => {
    const entries = Object.values(STATE_LAYOUT).map((n) => n.split("/")[0] ?? n);
    const byHand = new RegExp(`join\\([^)]*stateDir[^)]*,\\s*"(${entries.join("|").replace(/\./g, "\\.")})"`);
    expect(files.filter(({ text }) => byHand.test(text)).map(({ f }) => f)).toEqual([]);
  });

  it("names every entry once, under the state dir", () => {
    const paths = (Object.keys(STATE_LAYOUT) as (keyof typeof STATE_LAYOUT)[]).map((k) => statePath("/state", k));
    expect(new Set(paths).size).toBe(paths.length);
    for (const p of paths) expect(p.startsWith("/state/")).toBe(true);
  });
});
