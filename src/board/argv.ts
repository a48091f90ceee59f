// argv for `hermes kanban`, exactly as the contract says (hermes-cli-contract.md §1.1, §1.7):
//   <hermes…> kanban --board <slug> <verb> --opt=value … -- <id> <text>
// `--board` always before the verb, every option before `--`, id and free text after it.

export const TRUNCATION_MARKER = "\n\n[… truncated by hermes-kanban-bridge: {n} more characters not shown]";

/** Caps text so no single argv element can approach the 128 KiB MAX_ARG_STRLEN. */
export function capText(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, "utf8") <= maxBytes) return text;
  // Leave room for the marker; cut on a code point boundary.
  const budget = Math.max(0, maxBytes - 200);
  let cut = Math.min(text.length, budget);
  while (cut > 0 && Buffer.byteLength(text.slice(0, cut), "utf8") > budget) cut = Math.floor(cut * 0.9);
  const first = text.codePointAt(cut - 1);
  if (first !== undefined && first >= 0xd800 && first <= 0xdbff) cut -= 1;
  const rest = text.length - cut;
  return text.slice(0, cut) + TRUNCATION_MARKER.replace("{n}", String(rest));
}

export type Opt = readonly [name: string, value: string | number | boolean | undefined];

export interface VerbCall {
  verb: string;
  /** Options, rendered as --name=value (or --name for `true`); undefined/false are left out. */
  options?: readonly Opt[];
  /** Positionals after `--`: task id first, then free text. */
  positionals?: readonly string[];
}

export function buildArgv(prefix: readonly string[], board: string, call: VerbCall): string[] {
  const argv = [...prefix, "kanban", `--board=${board}`, call.verb];
  for (const [name, value] of call.options ?? []) {
    if (value === undefined || value === false) continue;
    argv.push(value === true ? `--${name}` : `--${name}=${value}`);
  }
  if (call.positionals && call.positionals.length > 0) argv.push("--", ...call.positionals);
  return argv;
}
