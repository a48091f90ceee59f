// The one way the bridge runs git (checkout mode, the gate's change listing, doctor): a git that
// cannot be turned against the bridge by what the agent left in a work tree. Every call gets
//   -c core.fsmonitor=false, core.hooksPath=/dev/null (or the operator's workspace.git.hooksPath),
//   core.sshCommand (workspace.git.sshCommand or plain ssh), no pager, no credential helper but the
//   operator's, commit/tag signing off, protocols limited to https, ssh, git and file (never ext::);
// GIT_CONFIG_NOSYSTEM=1 and GIT_CONFIG_GLOBAL = a bridge-owned file; an allow-listed environment (no
// secret reaches git but what workspace.git.passEnv names for a push); and, where a work tree is
// involved, an explicit GIT_DIR + GIT_WORK_TREE, so a `.git` the agent rewrote is never followed.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { pickEnv } from "../process/env.js";
import { runProcess } from "../process/runner.js";

export interface GitResult {
  ok: boolean;
  out: string;
  err: string;
}

export interface GitCall {
  /** The repository (GIT_DIR); with `workTree` the work tree (GIT_WORK_TREE). */
  gitDir?: string | undefined;
  workTree?: string | undefined;
  cwd?: string | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs?: number;
}

export type GitRunner = (args: readonly string[], o?: GitCall) => Promise<GitResult>;

export interface GitSettings {
  /** The bridge-owned global config (GIT_CONFIG_GLOBAL); written empty when missing. */
  globalConfig: string;
  sshCommand?: string | undefined;
  /** Hooks the operator wants (explicit); default none. */
  hooksPath?: string | undefined;
  /** Credential helper the operator wants for pushes (explicit); default none. */
  credentialHelper?: string | undefined;
  /** Variables passed through for fetch/push credentials (e.g. GIT_ASKPASS, a token the helper reads). */
  passEnv: readonly string[];
}

const BASE_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER", "LOGNAME", "SSH_AUTH_SOCK"];
const PROTOCOLS = ["https", "ssh", "git", "file"];

/** The `-c` options every call gets (before the subcommand). */
export function hardenedOptions(s: Pick<GitSettings, "sshCommand" | "hooksPath" | "credentialHelper">): string[] {
  const c = (kv: string) => ["-c", kv];
  return [
    ...c("core.fsmonitor=false"),
    ...c(`core.hooksPath=${s.hooksPath ?? "/dev/null"}`),
    ...c(`core.sshCommand=${s.sshCommand ?? "ssh"}`),
    ...c("core.pager=cat"),
    ...c("credential.helper="),
    ...(s.credentialHelper ? c(`credential.helper=${s.credentialHelper}`) : []),
    ...c("commit.gpgSign=false"),
    ...c("tag.gpgSign=false"),
    ...c("protocol.allow=never"),
    ...PROTOCOLS.flatMap((p) => c(`protocol.${p}.allow=always`)),
    "--no-pager",
  ];
}

/** The environment of a git call: an allow-list, the bridge's config file, explicit repository. */
export function gitEnv(parent: NodeJS.ProcessEnv, s: GitSettings, o: GitCall = {}): Record<string, string> {
  const env = pickEnv(parent, [...BASE_ENV, ...s.passEnv], { never: /^GIT_(DIR|WORK_TREE|CONFIG|CEILING|NAMESPACE|INDEX|OBJECT|ALTERNATE)/ });
  env.GIT_CONFIG_NOSYSTEM = "1";
  env.GIT_CONFIG_GLOBAL = s.globalConfig;
  env.GIT_TERMINAL_PROMPT = "0";
  env.GIT_ATTR_NOSYSTEM = "1";
  if (o.gitDir) env.GIT_DIR = o.gitDir;
  if (o.workTree) env.GIT_WORK_TREE = o.workTree;
  return env;
}

export function hardenedGit(parent: NodeJS.ProcessEnv, s: GitSettings): GitRunner {
  const opts = hardenedOptions(s);
  return async (args, o = {}) => {
    if (!existsSync(s.globalConfig)) {
      mkdirSync(dirname(s.globalConfig), { recursive: true, mode: 0o700 });
      writeFileSync(s.globalConfig, "# hermes-kanban-bridge: the only global git config the bridge's git reads\n", { mode: 0o600 });
    }
    const r = await runProcess({
      argv: ["git", ...opts, ...args],
      // Never a directory the agent could have made a repository: the repository is always explicit.
      cwd: o.cwd ?? o.workTree ?? o.gitDir ?? "/",
      env: gitEnv(parent, s, o),
      timeoutMs: o.timeoutMs ?? 300_000,
      signal: o.signal,
      captureLimit: 4 * 1024 * 1024,
    });
    return { ok: r.reason === "exited" && r.exitCode === 0, out: r.stdout, err: r.stderr || (r.spawnError?.message ?? "") };
  };
}
