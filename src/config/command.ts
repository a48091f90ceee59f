// Shell-like splitting of command strings given as flags or env (no library: 30 lines, no shell semantics wanted).

/** Splits a shell-like command string ("python3 '/opt/hermes/hermes'") into argv. */
export function splitCommand(cmd: string): string[] {
  const out: string[] = [];
  let cur = "";
  let has = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < cmd.length; i += 1) {
    const ch = cmd.charAt(i);
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === "\\" && quote === '"' && i + 1 < cmd.length) cur += cmd.charAt(++i);
      else cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      has = true;
    } else if (ch === "\\" && i + 1 < cmd.length) {
      cur += cmd.charAt(++i);
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur) out.push(cur);
      cur = "";
      has = false;
    } else {
      cur += ch;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} quote in command: ${cmd}`);
  if (has || cur) out.push(cur);
  return out;
}
