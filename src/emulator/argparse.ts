// A small argparse work-alike: enough of Python's behaviour that the emulator accepts and rejects
// the same argv as the real CLI (options anywhere, `--`, greedy positional chunks — the `block`
// trap of hermes-cli-contract.md §1.7 —, negative numbers, `--opt=value`, choices, int/float types).

export interface OptSpec {
  flag: string;
  dest: string;
  kind: "value" | "flag" | "append" | "multi";
  type?: "int" | "float";
  choices?: readonly string[];
  metavar?: string;
  /** The option's help line (printed by `help`, read by a bridge's capability probe). */
  help?: string;
}

export interface PosSpec {
  dest: string;
  nargs: 1 | "?" | "*" | "+";
}

export interface ParserSpec {
  prog: string;
  options: readonly OptSpec[];
  positionals: readonly PosSpec[];
}

export type Values = Record<string, string | number | boolean | string[] | null | undefined>;

/** An error of the sub-parser: usage + `<prog>: error: <message>`, exit 2. */
export class ArgError extends Error {}

export function usage(spec: ParserSpec): string {
  const parts = ["[-h]"];
  for (const o of spec.options) {
    const mv = o.choices ? `{${o.choices.join(",")}}` : (o.metavar ?? o.dest.toUpperCase());
    if (o.kind === "flag") parts.push(`[${o.flag}]`);
    else if (o.kind === "multi") parts.push(`[${o.flag} ${mv} [${mv} ...]]`);
    else parts.push(`[${o.flag} ${mv}]`);
  }
  for (const p of spec.positionals) {
    if (p.nargs === 1) parts.push(p.dest);
    else if (p.nargs === "?") parts.push(`[${p.dest}]`);
    else if (p.nargs === "*") parts.push(`[${p.dest} ...]`);
    else parts.push(`${p.dest} [${p.dest} ...]`);
  }
  return `usage: ${spec.prog} ${parts.join(" ")}`;
}

export function help(spec: ParserSpec): string {
  const lines = [usage(spec), "", "options:", "  -h, --help            show this help message and exit"];
  for (const o of spec.options) {
    const head = `  ${o.flag}${o.kind === "flag" ? "" : ` ${o.choices ? `{${o.choices.join(",")}}` : (o.metavar ?? o.dest.toUpperCase())}`}`;
    lines.push(o.help ? `${head.padEnd(22)}${head.length >= 22 ? `\n${" ".repeat(24)}` : "  "}${o.help}` : head);
  }
  return `${lines.join("\n")}\n`;
}

const NEG_NUM = /^-\d+$|^-\d*\.\d+$/;

/** argparse's _parse_optional: known options (also `--opt=value`) first, then the other rules. */
function looksOptional(spec: ParserSpec, t: string): boolean {
  if (!t.startsWith("-") || t.length < 2) return false;
  const name = t.includes("=") ? t.slice(0, t.indexOf("=")) : t;
  if (spec.options.some((o) => o.flag === t || o.flag === name) || t === "-h" || t === "--help") return true;
  if (NEG_NUM.test(t)) return false;
  if (t.includes(" ")) return false;
  return true;
}

export function parseArgs(spec: ParserSpec, tokens: readonly string[]): { values: Values; extras: string[]; help: boolean } {
  const values: Values = {};
  const extras: string[] = [];
  for (const o of spec.options) values[o.dest] = o.kind === "flag" ? false : o.kind === "append" || o.kind === "multi" ? [] : null;
  // Python 3.11's pattern: the first `--` is "-" (everything after it "A"); a positional's match may
  // take `--` with it (and drops it from its values); one no positional takes is an extra, verbatim
  // ("unrecognized arguments: -- more" on the real CLI).
  const kinds: ("A" | "O" | "-")[] = [];
  const args: string[] = [];
  let afterDashes = false;
  for (const t of tokens) {
    args.push(t);
    if (!afterDashes && t === "--") {
      afterDashes = true;
      kinds.push("-");
      continue;
    }
    kinds.push(!afterDashes && looksOptional(spec, t) ? "O" : "A");
  }
  const posLeft = [...spec.positionals];
  let i = 0;
  while (i < args.length) {
    const tok = args[i] ?? "";
    if (kinds[i] === "O") {
      if (tok === "-h" || tok === "--help") return { values, extras, help: true };
      const eq = tok.indexOf("=");
      const name = tok.startsWith("--") && eq > 0 ? tok.slice(0, eq) : tok;
      const opt = spec.options.find((o) => o.flag === name);
      if (!opt) {
        extras.push(tok);
        i += 1;
        continue;
      }
      if (opt.kind === "flag") {
        if (eq > 0) throw new ArgError(`argument ${opt.flag}: ignored explicit argument '${tok.slice(eq + 1)}'`);
        values[opt.dest] = true;
        i += 1;
        continue;
      }
      let raw: string[];
      if (eq > 0) {
        raw = [tok.slice(eq + 1)];
        i += 1;
      } else if (opt.kind === "multi") {
        raw = [];
        i += 1;
        while (i < args.length && kinds[i] === "A") raw.push(args[i++] ?? "");
        if (raw.length === 0) throw new ArgError(`argument ${opt.flag}: expected at least one argument`);
      } else {
        if (i + 1 >= args.length || kinds[i + 1] !== "A") throw new ArgError(`argument ${opt.flag}: expected one argument`);
        raw = [args[i + 1] ?? ""];
        i += 2;
      }
      const converted = raw.map((r) => convert(opt, r));
      if (opt.kind === "append" || opt.kind === "multi") (values[opt.dest] as string[]).push(...(converted as string[]));
      else values[opt.dest] = converted[0] ?? null;
      continue;
    }
    // A run of positionals: match as many remaining positional specs as possible (argparse's
    // consume_positionals); a `*` may match nothing and is then used up.
    let runLen = 0;
    while (i + runLen < args.length && kinds[i + runLen] !== "O") runLen += 1;
    const consumed = matchPositionals(posLeft, kinds.slice(i, i + runLen).join(""));
    if (!consumed) {
      extras.push(tok);
      i += 1;
      continue;
    }
    for (const [spec1, count] of consumed.assign) {
      const slice = args.slice(i, i + count);
      const dashes = kinds.slice(i, i + count).indexOf("-");
      if (dashes >= 0) slice.splice(dashes, 1);
      i += count;
      values[spec1.dest] = spec1.nargs === 1 || spec1.nargs === "?" ? (slice[0] ?? null) : slice;
      posLeft.shift();
    }
    if (consumed.total === 0) {
      extras.push(tok);
      i += 1;
    }
  }
  const missing = posLeft.filter((p) => p.nargs === 1 || p.nargs === "+").map((p) => p.dest);
  if (missing.length > 0) throw new ArgError(`the following arguments are required: ${missing.join(", ")}`);
  for (const p of posLeft) values[p.dest] = p.nargs === "*" ? [] : null;
  return { values, extras, help: false };
}

/** argparse's _match_arguments_partial over a run's pattern ("A" argument, "-" the first `--`). */
function matchPositionals(specs: readonly PosSpec[], run: string): { assign: [PosSpec, number][]; total: number } | null {
  for (let k = specs.length; k >= 1; k -= 1) {
    const pattern = specs.slice(0, k).map((s) => (s.nargs === 1 ? "(-*A-*)" : s.nargs === "?" ? "(-*A?-*)" : s.nargs === "*" ? "(-*[A-]*)" : "(-*A[A-]*)"));
    const m = new RegExp(`^${pattern.join("")}`).exec(run);
    if (m) {
      const assign: [PosSpec, number][] = specs.slice(0, k).map((s, idx) => [s, (m[idx + 1] ?? "").length]);
      return { assign, total: assign.reduce((n, [, c]) => n + c, 0) };
    }
  }
  return null;
}

function convert(opt: OptSpec, raw: string): string | number {
  if (opt.choices && !opt.choices.includes(raw))
    throw new ArgError(`argument ${opt.flag}: invalid choice: '${raw}' (choose from ${opt.choices.map((c) => `'${c}'`).join(", ")})`);
  if (opt.type === "int") {
    if (!/^[-+]?\d+$/.test(raw.trim())) throw new ArgError(`argument ${opt.flag}: invalid int value: '${raw}'`);
    return Number.parseInt(raw, 10);
  }
  if (opt.type === "float") {
    const n = Number(raw);
    if (raw.trim() === "" || Number.isNaN(n)) throw new ArgError(`argument ${opt.flag}: invalid float value: '${raw}'`);
    return n;
  }
  return raw;
}
