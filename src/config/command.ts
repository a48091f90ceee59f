// Shell-like splitting of command strings given as flags or env (no library: 30 lines, no shell semantics wanted).

/**
 * POSIX-shell-like words of a command line: single quotes literal, double quotes with the `\"`, `\\`,
 * `\$`, `` \` `` escapes, a backslash outside quotes escaping the next character. No expansion.
 * `complete` is false while a quote is open (a recorded command line continues on the next line).
 */
export function shellWords(cmd: string): { words: string[]; complete: boolean } {
  const words: string[] = [];
  let cur = "";
  let has = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < cmd.length; i += 1) {
    const ch = cmd.charAt(i);
    if (quote === "'") {
      if (ch === "'") quote = null;
      else cur += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = null;
      else if (ch === "\\" && i + 1 < cmd.length && '"\\$`'.includes(cmd.charAt(i + 1))) cur += cmd.charAt(++i);
      else cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      has = true;
    } else if (ch === "\\" && i + 1 < cmd.length) {
      cur += cmd.charAt(++i);
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur) words.push(cur);
      cur = "";
      has = false;
    } else cur += ch;
  }
  if (has || cur) words.push(cur);
  return { words, complete: quote === null };
}

/** Splits a shell-like command string ("python3 '/opt/hermes/hermes'") into argv. */
export function splitCommand(cmd: string): string[] {
  const { words, complete } = shellWords(cmd);
  if (!complete) throw new Error(`unterminated quote in command: ${cmd}`);
  return words;
}
