// A hermes command reached through ssh ("ssh board-host hermes"): ssh joins every argument after the
// destination into one string that the remote user's LOGIN shell parses again — whatever that shell is
// (bash, dash, but also fish, whose single quotes take `\'` and `\\` as escapes, or csh, where a newline
// ends a quoted word) — and passes none of the bridge's environment. So the bridge never hands its words
// to that shell's quoting rules: a call whose every word is plain (letters, digits, `_./:=@%+,-`, the same
// in every shell) goes as it is; any other is one POSIX script (each argument single-quoted, as before)
// carried as `sh -c '<a script that prints the script and evals it>'`, the outer word holding only
// characters every shell takes literally inside single quotes — the rest written as `printf %b` octal
// escapes (`\0ooo`). The variables the CLI must see — the fencing pair, HERMES_HOME, hermes.env,
// HERMES_PROFILE — travel in the script through `env`. Without this, task text would be remote shell
// input and a close would reach Hermes unfenced.
import { basename } from "node:path";

/** ssh options that take a value (man ssh): the destination is the first word that is not one. */
const WITH_VALUE = new Set("BbcDEeFIiJLlmOoPpQRSWw".split("").map((c) => `-${c}`));

/** The ssh part (program, options, destination) and the remote command prefix, or null when not ssh. */
export function sshSplit(prefix: readonly string[]): { ssh: string[]; remote: string[] } | null {
  const [program] = prefix;
  if (!program || basename(program) !== "ssh") return null;
  let i = 1;
  while (i < prefix.length) {
    const a = prefix[i] ?? "";
    if (a === "--") {
      i += 1;
      break;
    }
    if (!a.startsWith("-")) break;
    i += WITH_VALUE.has(a) ? 2 : 1;
  }
  if (i >= prefix.length) return null; // no destination: let ssh say what is wrong
  return { ssh: prefix.slice(0, i + 1), remote: prefix.slice(i + 1) };
}

/** One word for a POSIX shell: single-quoted, a quote inside as '\''. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`;
}

/**
 * A word every login shell takes as it is, unquoted: no quote, escape, separator, expansion or glob
 * character; not starting with `=` (zsh's path expansion) or `%` (fish 2's process expansion).
 */
const PLAIN = /^[A-Za-z0-9_./:@+,-][A-Za-z0-9_./:=@%+,-]*$/;

/**
 * A POSIX script as one word every login shell passes to `sh -c` unchanged: inside single quotes, with
 * every character that is special there in some shell (`'`, `\`, `!`, a newline or any control character)
 * or inside the script's own double quotes (`"`, `$`, a backquote) written as a `printf %b` octal escape.
 */
export function portableScript(script: string): string[] {
  const escaped = script.replace(/['"\\$`!\u0000-\u001f\u007f]/g, (c) => `\\0${c.charCodeAt(0).toString(8).padStart(3, "0")}`);
  return ["sh", "-c", `'s=$(printf %b "${escaped}"); eval "$s"'`];
}

/**
 * The board host's process that ran an announcing call (`<host>:<pid>`, what Hermes writes as a claim's
 * lock), the board host's time then (epoch seconds: a `claimed` event under that lock written earlier was
 * another process's with the same pid, before the pids wrapped) and the call's stderr without that line;
 * null when the call did not announce it. The line carries the call's own nonce, which nothing the CLI
 * prints (task text included) can know.
 */
export function announcedProcess(stderr: string, nonce: string): { host: string; pid: number; since: number; stderr: string } | null {
  if (!/^[0-9a-f]+$/.test(nonce)) return null;
  const m = new RegExp(`^hkb-board-process-${nonce} (\\S+):(\\d+) (\\d+)$`, "m").exec(stderr);
  if (!m?.[1] || !m[2] || !m[3]) return null;
  const rest = stderr.slice(0, m.index) + stderr.slice(m.index + m[0].length).replace(/^\n/, "");
  return { host: m[1], pid: Number(m[2]), since: Number(m[3]), stderr: rest };
}

/**
 * The argv that runs `args` after the hermes prefix. Through ssh: `remoteEnv` set by `env` on the far side
 * (and `cwd` entered first), every word safe from the login shell's own rules; otherwise the prefix and the
 * arguments as they are. `announce` (a nonce; through ssh, a remote prefix of plain words): the far side
 * first writes its host and pid to stderr with it (`announcedProcess`), then `exec`s the CLI in that same process — the
 * pid in the lock Hermes writes for a claim, so a claim whose answer was lost can still be told as ours.
 */
export function hermesArgv(
  prefix: readonly string[],
  args: readonly string[],
  remoteEnv: Record<string, string>,
  o: { cwd?: string; announce?: string } = {},
): string[] {
  const split = sshSplit(prefix);
  if (!split) return [...prefix, ...args];
  const vars = Object.entries(remoteEnv).map(([k, v]) => `${k}=${v}`);
  const words = [...(vars.length ? ["env", ...vars] : []), ...split.remote, ...args];
  // `exec` of a remote prefix that is shell syntax (`cd x && hermes`) would change what it means: not announced.
  const announce = o.announce !== undefined && /^[0-9a-f]+$/.test(o.announce) && !o.cwd && split.remote.every((w) => PLAIN.test(w));
  if (!o.cwd && !announce && words.every((w) => PLAIN.test(w))) return [...split.ssh, ...words];
  // The operator's remote prefix is shell syntax of their own (`python3 /opt/hermes/hermes`): as written.
  const script = [
    ...(announce ? [`printf 'hkb-board-process-${o.announce} %s:%s %s\\n' "$(uname -n)" "$$" "$(date +%s)" >&2; exec`] : []),
    ...(o.cwd ? [`cd ${shellQuote(o.cwd)} &&`] : []),
    ...(vars.length ? ["env", ...vars.map(shellQuote)] : []),
    ...split.remote,
    ...args.map(shellQuote),
  ].join(" ");
  return [...split.ssh, ...portableScript(script)];
}
