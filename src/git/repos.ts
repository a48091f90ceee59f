// What git would use in a work tree, as the bridge reads it (never through git itself): every repository
// an operator's `git status` there would enter — the work tree's own (`.git` a folder, or a file naming
// a git dir; its `commondir`) and each submodule the index records as a gitlink with a `.git` of its own
// — and, of each, the config keys that run code and the hooks. Every read goes through the workspace
// boundary; a config is parsed by the bridge's hardened git from a private copy (`--file`, no includes).
import { lstat, mkdir, readdir, unlink, writeFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { readBytesInside, SandboxRefused } from "../agent-files/files.js";
import type { GitRunner } from "./runner.js";

/** Config keys whose value git runs (or that make git run, or read, something else). */
const CODE_KEYS: readonly RegExp[] = [
  /^core\.(fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy|alternaterefscommand|worktree|attributesfile|excludesfile)$/,
  /^(sequence|gpg(\.[^.]+)?)\.(editor|program)$/,
  /^diff\.(external|[^.]+\.(textconv|command))$/,
  /^merge\.[^.]+\.driver$/,
  /^filter\.[^.]+\.(clean|smudge|process)$/,
  /^credential(\.[^.]+)?\.helper$/,
  /^include(if\.[^.]+)?\.path$/,
  /^includeif\..+\.path$/,
  /^pager\.[^.]+$/,
  /^interactive\.difffilter$/,
  /^uploadpack\.packobjectshook$/,
  /^remote\.[^.]+\.(uploadpack|receivepack|proxy)$/,
  /^(difftool|mergetool|man|browser)\.[^.]+\.(cmd|path)$/,
  /^web\.browser$/,
  /^protocol\.[^.]+\.allow$/,
  /^protocol\.allow$/,
  /^submodule\.[^.]+\.update$/,
  /^trailer\.[^.]+\.(command|cmd)$/,
  /^sendemail\..*cmd$/,
  /^http\..*cookiefile$/,
  // signing programs (ssh signing runs defaultKeyCommand at every signed commit), config-based hooks, other transports
  /^gpg\.ssh\.(defaultkeycommand|allowedsignersfile|program)$/,
  /^hook\.[^.]+\.command$/,
  /^lfs\.(customtransfer|extension)\.[^.]+\.(path|clean|smudge|args)$/,
  /^imap\.tunnel$/,
  /^sendemail\.(smtpserver|toCmd|ccCmd|headerCmd)$/i,
  /^guitool\.[^.]+\.cmd$/,
  /^(core\.)?sshcommand$/,
  /^safe\.directory$/,
];

/** An alias runs a program when it starts with `!`. */
export const runsCode = (key: string, value: string) => CODE_KEYS.some((re) => re.test(key)) || (/^alias\./.test(key) && value.trimStart().startsWith("!"));

/** How many submodules are looked into (a run that records thousands of gitlinks is blocked for it). */
export const MAX_SUBMODULES = 64;

export interface RepoPrint {
  /** The work tree this repository belongs to. */
  workTree: string;
  dotGit: { kind: "dir" | "file"; dev: number; ino: number; bytes: Buffer | null };
  gitDir: string;
  common: string;
  /** The git dir's `commondir` (where git takes config and hooks from), as bytes; null: none. */
  commondir: Buffer | null;
  /** Each config file git reads for this work tree, as bytes (null: absent), and refused reads (a link…). */
  configs: { path: string; bytes: Buffer | null; refused: string | null }[];
  hooksDir: string;
  hooks: { kind: "dir"; files: Map<string, Buffer | null> } | { kind: "absent" } | { kind: "other" };
}

async function readMaybe(root: string, p: string, maxBytes = 1024 * 1024): Promise<{ bytes: Buffer | null; refused: string | null }> {
  try {
    return { bytes: await readBytesInside(root, p, { maxBytes }), refused: null };
  } catch (err) {
    if (err instanceof SandboxRefused && err.why === "does not exist") return { bytes: null, refused: null };
    return { bytes: null, refused: err instanceof SandboxRefused ? err.why : (err as Error).message };
  }
}

/** The repository of `workTree` as git would find it; null when it has none. Reads are rooted at `root` (the workspace). */
export async function repoPrint(workTree: string, root: string): Promise<RepoPrint | null> {
  const dot = join(workTree, ".git");
  const st = await lstat(dot).catch(() => null);
  if (!st || !(st.isDirectory() || st.isFile())) return null;
  let gitDir = dot;
  let bytes: Buffer | null = null;
  if (st.isFile()) {
    bytes = (await readMaybe(root, dot, 4096)).bytes;
    const m = /^gitdir:\s*(.+)$/m.exec(bytes?.toString("utf8") ?? "");
    if (!m?.[1]) return null;
    gitDir = resolve(workTree, m[1].trim());
  }
  // A git dir outside the workspace (a linked worktree's) is read inside its own folder.
  const inRoot = (p: string) => (p === root || p.startsWith(`${root}/`) ? root : p);
  const gitRoot = inRoot(gitDir);
  const commondir = (await readMaybe(gitRoot, join(gitDir, "commondir"), 4096)).bytes;
  const commonText = commondir?.toString("utf8").trim();
  const common = commonText ? (isAbsolute(commonText) ? commonText : resolve(gitDir, commonText)) : gitDir;
  const commonRoot = inRoot(common);
  const configs = await Promise.all(
    [join(common, "config"), join(gitDir, "config.worktree")].map(async (path) => ({
      path,
      ...(await readMaybe(path.startsWith(common) ? commonRoot : gitRoot, path)),
    })),
  );
  const hooksDir = join(common, "hooks");
  const hst = await lstat(hooksDir).catch(() => null);
  let hooks: RepoPrint["hooks"] = { kind: "absent" };
  if (hst?.isDirectory()) {
    const files = new Map<string, Buffer | null>();
    for (const n of (await readdir(hooksDir).catch(() => [] as string[])).filter((x) => !x.endsWith(".sample")))
      files.set(n, (await readMaybe(commonRoot, join(hooksDir, n))).bytes);
    hooks = { kind: "dir", files };
  } else if (hst) hooks = { kind: "other" };
  return {
    workTree,
    dotGit: { kind: st.isDirectory() ? "dir" : "file", dev: st.dev, ino: st.ino, bytes },
    gitDir,
    common,
    commondir,
    configs,
    hooksDir,
    hooks,
  };
}

/** The config keys of `bytes` that run code (key → value), parsed by the hardened git from a private copy. */
export async function codeKeys(bytes: Buffer | null, o: { git: GitRunner; privateDir: string }): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!bytes) return out;
  await mkdir(o.privateDir, { recursive: true, mode: 0o700 });
  const copy = join(o.privateDir, `guard-config-${process.hrtime.bigint()}`);
  await writeFile(copy, bytes, { mode: 0o600 });
  const r = await o.git(["config", "--file", copy, "--list", "-z", "--no-includes"]);
  await unlink(copy).catch(() => undefined);
  for (const entry of r.out.split("\0")) {
    const nl = entry.indexOf("\n");
    const key = (nl === -1 ? entry : entry.slice(0, nl)).toLowerCase();
    const value = nl === -1 ? "" : entry.slice(nl + 1);
    if (entry && runsCode(key, value)) out.set(key, value);
  }
  return out;
}

/** The submodules git would enter from `top`: gitlinks in its index whose path has a `.git` of its own. */
export async function submodulesOf(top: RepoPrint, git: GitRunner): Promise<string[]> {
  const r = await git(["ls-files", "--stage", "-z"], { gitDir: top.gitDir, workTree: top.workTree });
  const out: string[] = [];
  for (const entry of r.out.split("\0")) {
    const tab = entry.indexOf("\t");
    if (tab === -1 || !entry.startsWith("160000 ")) continue;
    const path = entry.slice(tab + 1);
    if (path.split("/").includes("..") || isAbsolute(path)) continue;
    const at = join(top.workTree, path);
    if (await lstat(join(at, ".git")).catch(() => null)) out.push(at);
    if (out.length > MAX_SUBMODULES) break;
  }
  return out;
}
