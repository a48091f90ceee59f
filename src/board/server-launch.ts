// How the call server of a hermes command is started: for a Python launcher (`python3 /opt/hermes/hermes`,
// or `hermes` whose shebang names Python) the bridge's own server program (callserver/, standard library
// only) with that interpreter; through ssh the same program on the board host, through the same
// `ssh …` prefix (it finds the launcher there itself); a CLI that is not Python only when asked
// (`callServer: on`), as `<command> --call-server` (the emulator speaks the same protocol).
import { accessSync, closeSync, constants, openSync, readFileSync, readSync } from "node:fs";
import { basename, delimiter, isAbsolute, join } from "node:path";
import { bundledFile } from "../config/paths.js";
import { hermesArgv, sshSplit } from "./remote.js";

let source: string | undefined;
const serverSource = () => {
  source ??= readFileSync(bundledFile("callserver", "hermes_callserver.py"), "utf8");
  return source;
};

function onPath(prog: string, path: string | undefined): string | null {
  if (prog.includes("/")) return prog;
  for (const dir of (path ?? "").split(delimiter).filter(Boolean)) {
    const p = join(dir, prog);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // next
    }
  }
  return null;
}

/** The Python interpreter a local hermes command runs with, or null when it is not a Python launcher. */
export function pythonOf(command: readonly string[], path: string | undefined): string | null {
  const [prog] = command;
  if (!prog) return null;
  if (/^python[0-9.]*$/.test(basename(prog))) return command.length > 1 ? prog : null;
  const file = onPath(prog, path);
  if (!file) return null;
  let first = "";
  try {
    const fd = openSync(file, "r");
    const buf = Buffer.alloc(256);
    const n = readSync(fd, buf, 0, 256, 0);
    closeSync(fd);
    first = buf.subarray(0, n).toString("utf8").split("\n")[0] ?? "";
  } catch {
    return null;
  }
  if (!first.startsWith("#!") || !first.includes("python")) return null;
  const words = first.slice(2).trim().split(/\s+/);
  const interp = basename(words[0] ?? "") === "env" ? words[1] : words[0];
  if (!interp) return null;
  return isAbsolute(interp) ? interp : onPath(interp, path);
}

/**
 * The argv that starts the call server for `command`, or null when there is none to start. `inherit`:
 * a call's environment goes on top of the server's own (through ssh the board host's; a command's own
 * server keeps what a wrapper such as `env X=1 …` set) rather than replacing it.
 */
export function serverArgv(
  command: readonly string[],
  o: { mode: "auto" | "on"; path: string | undefined; remoteEnv: Record<string, string> },
): { argv: string[]; inherit: boolean } | null {
  const ssh = sshSplit(command);
  if (ssh) {
    // The program goes as one (quoted) word of the remote command line; the launcher is found there.
    // `cd /` first: the remote shell starts in the login's HOME, which must not be what Python imports from.
    return { argv: hermesArgv([...ssh.ssh, "python3"], ["-I", "-c", serverSource(), "--", ...ssh.remote], o.remoteEnv, { cwd: "/" }), inherit: true };
  }
  const python = pythonOf(command, o.path);
  // -I: isolated — neither the cwd nor PYTHON* variables put files on sys.path (started from `/` as well).
  if (python) return { argv: [python, "-I", "-c", serverSource(), "--", ...command], inherit: false };
  return o.mode === "on" ? { argv: [...command, "--call-server"], inherit: true } : null;
}

/**
 * Why `hermes.share: host` cannot apply to this command (there is no call server to share), or null. One
 * rule for the seat's log and `doctor`'s row.
 */
export function noShareReason(command: readonly string[], mode: "auto" | "on" | "off", path: string | undefined): string | null {
  if (mode === "off") return "hermes.share: host has no effect: callServer is off, so there is no call server to share";
  if (mode === "auto" && !sshSplit(command) && !pythonOf(command, path))
    return "hermes.share: host has no effect: the hermes command is not a Python launcher, so callServer: auto starts no call server to share (`on` forces it)";
  return null;
}
