// config.example.yaml documents every key: each key of the schema (every agent kind's too) appears in
// it, set or commented out with its default. (That the file loads as is: test/integration/doctor.test.ts.)
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { AGENT_KINDS } from "../../src/agents/kinds.js";
import { baseShape } from "../../src/config/schema.js";

type Def = { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; out?: z.ZodType; options?: z.ZodType[] };
const def = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Key paths of an object schema, through optional/default/prefault/preprocess wrappers and unions of objects. */
function keys(s: z.ZodType, prefix: string): string[] {
  const d = def(s);
  if (d.type === "optional" || d.type === "default" || d.type === "prefault" || d.type === "nullable") return keys(d.innerType as z.ZodType, prefix);
  if (d.type === "pipe") return keys(d.out as z.ZodType, prefix);
  if (d.type === "union") return [...new Set((d.options ?? []).flatMap((o) => keys(o, prefix)))];
  if (d.type === "object") {
    const shape = (s as unknown as { shape: Record<string, z.ZodType> }).shape;
    return Object.entries(shape).flatMap(([k, v]) => {
      const inner = keys(v, `${prefix}${k}.`);
      return inner.length ? inner : [`${prefix}${k}`];
    });
  }
  return [];
}

describe("config.example.yaml", () => {
  const text = readFileSync("config.example.yaml", "utf8");
  const top = Object.entries(baseShape).flatMap(([k, v]) => {
    const inner = keys(v as z.ZodType, `${k}.`);
    return inner.length ? inner : [k];
  });
  const all = [...top, ...new Set(AGENT_KINDS.flatMap((k) => keys(k.schema, "agent.")))];

  it("names every key of the schema", () => {
    expect(all.length).toBeGreaterThan(60);
    // Each key by name, as `key:` (set, or commented out with its default).
    const missing = all.filter((path) => !new RegExp(`\\b${path.split(".").at(-1) ?? path}:`).test(text));
    expect(missing).toEqual([]);
  });
});
