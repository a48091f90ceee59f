// argv for `hermes kanban`, exactly as the contract says (hermes-cli-contract.md §1.1, §1.7):
//   <hermes…> kanban --board <slug> <verb> --opt=value … -- <id> <text>
// `--board` always before the verb, every option before `--`, id and free text after it. Free text is
// made argv-safe by its producer (argvText, escapeControlsDeep); a NUL that still gets here is escaped
// so the spawn cannot fail on it.

export { TRUNCATION_MARKER, argvText, capText } from "../result/text.js";

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
    argv.push(value === true ? `--${name}` : `--${name}=${noNul(String(value))}`);
  }
  if (call.positionals && call.positionals.length > 0) argv.push("--", ...call.positionals.map(noNul));
  return argv;
}

const noNul = (s: string) => (s.includes("\0") ? s.replace(/\0/g, "\\x00") : s);
