// The block template (seed 002): five required, non-empty fields, rendered as five labelled lines.
import { z } from "zod";

/** Hermes's block kinds (`block --kind`). */
export type BlockKind = "needs_input" | "capability" | "transient" | "dependency";
/** The kinds the bridge may send (DESIGN: never `dependency`, it loops back to ready). */
export type CloseBlockKind = Exclude<BlockKind, "dependency">;

export const CAUSES = ["human decision needed", "test failure", "environment", "auth missing", "spec undecided"] as const;
export type Cause = (typeof CAUSES)[number];

const field = (name: string) =>
  z
    .string({ error: `${name} is required` })
    .trim()
    .min(1, `${name} must not be empty`);

export const BlockTemplateSchema = z.object({
  cause: z.enum(CAUSES, { error: `cause must be one of: ${CAUSES.join(" | ")}` }),
  what_happened: field("what_happened"),
  options: z.union([field("options"), z.array(field("options")).min(1, "options must list at least one option")]),
  recommendation: field("recommendation"),
  next_action: field("next_action"),
});

export type BlockTemplateInput = z.input<typeof BlockTemplateSchema>;
export type BlockTemplate = z.output<typeof BlockTemplateSchema>;

export function formatOptions(options: string | readonly string[]): string {
  if (typeof options === "string") return options;
  return options.map((o, i) => `${String.fromCharCode(65 + (i % 26))}) ${o}`).join("; ");
}

export function renderBlock(t: BlockTemplate): string {
  return [
    `cause: ${t.cause}`,
    `what happened: ${t.what_happened}`,
    `options: ${formatOptions(t.options)}`,
    `recommendation: ${t.recommendation}`,
    `next action needed: ${t.next_action}`,
  ].join("\n");
}

/**
 * DESIGN: needs_input for human decision / spec undecided, capability for auth / environment,
 * transient for rate or usage limits; never dependency. A test failure needs a person to look: needs_input.
 */
export function kindFor(cause: Cause, opts: { limit?: boolean } = {}): CloseBlockKind {
  if (opts.limit) return "transient";
  if (cause === "auth missing" || cause === "environment") return "capability";
  return "needs_input";
}

export function validateBlock(input: unknown): { ok: true; template: BlockTemplate } | { ok: false; error: string } {
  const r = BlockTemplateSchema.safeParse(input);
  if (r.success) return { ok: true, template: r.data };
  return { ok: false, error: r.error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ") };
}

/** True when a rendered reason carries all five labelled lines, each non-empty. */
export function hasAllFields(reason: string): boolean {
  return ["cause", "what happened", "options", "recommendation", "next action needed"].every((label) => new RegExp(`^${label}: \\S`, "m").test(reason));
}
