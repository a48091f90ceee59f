// A hermes command reached through ssh ("ssh board-host hermes"): ssh joins every argument after the
// destination into one string that the remote login shell parses again, and passes none of the
// bridge's environment. So each argument the bridge adds is single-quoted for that (POSIX) shell, and
// the variables the CLI must see — the fencing pair, HERMES_HOME, hermes.env, HERMES_PROFILE — travel
// on the remote command line through `env`. Without this, task text would be remote shell input and a
// close would reach Hermes unfenced.
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
 * The argv that runs `args` after the hermes prefix. Through ssh: the bridge's own arguments quoted and
 * `remoteEnv` set by `env` on the far side; otherwise the prefix and the arguments as they are.
 */
export function hermesArgv(prefix: readonly string[], args: readonly string[], remoteEnv: Record<string, string>): string[] {
  const split = sshSplit(prefix);
  if (!split) return [...prefix, ...args];
  const vars = Object.entries(remoteEnv).map(([k, v]) => shellQuote(`${k}=${v}`));
  return [...split.ssh, ...(vars.length ? ["env", ...vars] : []), ...split.remote, ...args.map(shellQuote)];
}
