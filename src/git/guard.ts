// A workspace's repository is no door to the host. Its config and hooks are the agent's to edit, and git
// runs what they name whenever anyone runs git there — the operator's next `git status` in a `dir:`
// repository would run an agent's `core.fsmonitor`, filter or hook on the host, unjailed. So the bridge
// reads them before the agent starts (the config files git reads for the work tree, and the hooks
// folder) and checks them after the run: a key that runs code which the run added or changed, a hook it
// added or changed, or a `.git` it replaced, is a finding — the close becomes a block naming it, and
// the config and hooks are put back as they were. Every read goes through the workspace boundary; the
// config is parsed by the bridge's hardened git from a private copy (`--file`, no includes followed).
import { randomBytes } from "node:crypto";
import { lstat, mkdir, readdir, rename, unlink, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { readBytesInside, SandboxRefused } from "../sandbox/files.js";
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
];

/** An alias runs a program when it starts with `!`. */
const runsCode = (key: string, value: string) => CODE_KEYS.some((re) => re.test(key)) || (/^alias\./.test(key) && value.trimStart().startsWith("!"));

export interface GuardFinding {
  /** What the run left (`core.fsmonitor`, `hook pre-commit`, `.git`). */
  what: string;
  detail: string;
}

interface Watched {
  /** Where git reads it, and the root it is read inside (the workspace, or a worktree's git dir). */
  path: string;
  root: string;
  bytes: Buffer | null;
  mode: number;
}

/** The repository of a work tree as git would find it: `.git` a folder, or a file naming one (a worktree). */
async function gitDirs(workTree: string): Promise<{ gitDir: string; common: string; dotGit: { dev: number; ino: number } } | null> {
  const dot = join(workTree, ".git");
  const st = await lstat(dot).catch(() => null);
  if (!st) return null;
  if (st.isDirectory()) return { gitDir: dot, common: dot, dotGit: { dev: st.dev, ino: st.ino } };
  if (!st.isFile()) return null;
  const text = (await readBytesInside(workTree, ".git", { maxBytes: 4096 }).catch(() => null))?.toString("utf8") ?? "";
  const m = /^gitdir:\s*(.+)$/m.exec(text);
  if (!m?.[1]) return null;
  const gitDir = resolve(workTree, m[1].trim());
  const commonText = (await readBytesInside(gitDir, "commondir", { maxBytes: 4096 }).catch(() => null))?.toString("utf8").trim();
  const common = commonText ? (isAbsolute(commonText) ? commonText : resolve(gitDir, commonText)) : gitDir;
  return { gitDir, common, dotGit: { dev: st.dev, ino: st.ino } };
}

async function readMaybe(root: string, p: string): Promise<Buffer | null> {
  try {
    return await readBytesInside(root, p, { maxBytes: 1024 * 1024 });
  } catch (err) {
    if (err instanceof SandboxRefused && err.why === "does not exist") return null;
    throw err;
  }
}

/** An entry of the work tree (its top two levels) that is the folder `id` was: where a run moved `.git`. */
async function findByInode(workTree: string, id: { dev: number; ino: number }): Promise<string | null> {
  const look = async (dir: string, depth: number): Promise<string | null> => {
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const p = join(dir, name);
      const st = await lstat(p).catch(() => null);
      if (!st?.isDirectory()) continue;
      if (st.dev === id.dev && st.ino === id.ino) return p;
      if (depth > 0) {
        const deeper = await look(p, depth - 1);
        if (deeper) return deeper;
      }
    }
    return null;
  };
  return look(workTree, 1);
}

/** The hooks folder: a real folder (its hook names), absent, or something else in its place (a link). */
async function hooksOf(dir: string): Promise<{ kind: "dir"; names: string[] } | { kind: "absent" } | { kind: "other" }> {
  const st = await lstat(dir).catch(() => null);
  if (!st) return { kind: "absent" };
  if (!st.isDirectory()) return { kind: "other" };
  return { kind: "dir", names: (await readdir(dir).catch(() => [] as string[])).filter((n) => !n.endsWith(".sample")) };
}
const namesOf = (h: Awaited<ReturnType<typeof hooksOf>>) => (h.kind === "dir" ? h.names : []);

/** A config or hook file as git would read it now: its bytes, absent, or refused (a link, a FIFO: git would follow it). */
async function readNow(root: string, p: string): Promise<{ bytes: Buffer | null } | { refused: string }> {
  try {
    return { bytes: await readMaybe(root, p) };
  } catch (err) {
    return { refused: err instanceof SandboxRefused ? err.why : (err as Error).message };
  }
}

export interface RepositoryGuard {
  /** What the jail shows read-only (the config and hooks of a `.git` inside the work tree). */
  readonly readOnly: readonly string[];
  /** What the run left that runs code; empty when nothing. */
  check(): Promise<GuardFinding[]>;
  /** Puts the config and hooks back as they were before the run. */
  restore(): Promise<void>;
}

/** Reads a work tree's repository before the agent starts; null when it is no repository. */
export async function guardRepository(workTree: string, o: { git: GitRunner; privateDir: string }): Promise<RepositoryGuard | null> {
  const dirs = await gitDirs(workTree);
  if (!dirs) return null;
  const inWs = dirs.gitDir === join(workTree, ".git");
  const rootOf = (p: string) => (inWs ? workTree : dirname(p));
  const configs = [join(dirs.common, "config"), join(dirs.gitDir, "config.worktree")];
  const hooks = join(dirs.common, "hooks");
  const watched: Watched[] = [];
  const hooksBefore = await hooksOf(hooks);
  for (const path of [...configs, ...namesOf(hooksBefore).map((n) => join(hooks, n))]) {
    const root = rootOf(path);
    const mode = (await lstat(path).catch(() => null))?.mode ?? 0o644;
    watched.push({ path, root, bytes: await readMaybe(root, path).catch(() => null), mode: mode & 0o777 });
  }
  const parse = async (bytes: Buffer | null, name: string): Promise<Map<string, string>> => {
    const out = new Map<string, string>();
    if (!bytes) return out;
    await mkdir(o.privateDir, { recursive: true, mode: 0o700 });
    const copy = join(o.privateDir, `guard-${name}`);
    await writeFile(copy, bytes, { mode: 0o600 });
    const r = await o.git(["config", "--file", copy, "--list", "-z", "--no-includes"]);
    await unlink(copy).catch(() => undefined);
    for (const entry of r.out.split("\0")) {
      const nl = entry.indexOf("\n");
      if (entry) out.set((nl === -1 ? entry : entry.slice(0, nl)).toLowerCase(), nl === -1 ? "" : entry.slice(nl + 1));
    }
    return out;
  };
  const before = new Map<string, Map<string, string>>();
  for (const c of configs) before.set(c, await parse(watched.find((w) => w.path === c)?.bytes ?? null, "before"));
  const sameDotGit = async () => {
    const st = await lstat(join(workTree, ".git")).catch(() => null);
    return st !== null && st.dev === dirs.dotGit.dev && st.ino === dirs.dotGit.ino;
  };
  const readOnly = inWs ? [join(dirs.gitDir, "config"), join(dirs.gitDir, "config.worktree"), hooks, join(dirs.gitDir, "info")] : [];
  return {
    readOnly,
    async check() {
      const findings: GuardFinding[] = [];
      if (!(await sameDotGit()))
        return [{ what: ".git", detail: "the repository's .git was replaced during the run (the bridge puts the one it had back, and sets the run's aside)" }];
      for (const c of configs) {
        const was = before.get(c) ?? new Map<string, string>();
        const read = await readNow(rootOf(c), c);
        if ("refused" in read) {
          findings.push({ what: "config", detail: `${c} ${read.refused}: git would read whatever it leads to` });
          continue;
        }
        for (const [key, value] of await parse(read.bytes, "after"))
          if (runsCode(key, value) && was.get(key) !== value) findings.push({ what: key, detail: `${key} = ${JSON.stringify(value.slice(0, 200))} in ${c}` });
      }
      const hooksNow = await hooksOf(hooks);
      if (hooksNow.kind === "other") findings.push({ what: "hooks", detail: `${hooks} is no longer a folder (a link in its place?)` });
      const hadHooks = new Map(watched.filter((w) => dirname(w.path) === hooks).map((w) => [w.path, w.bytes]));
      for (const n of namesOf(hooksNow)) {
        const p = join(hooks, n);
        const now = await readNow(rootOf(p), p);
        const same = "bytes" in now && hadHooks.has(p) && (hadHooks.get(p) ?? null)?.equals(now.bytes ?? Buffer.alloc(0)) === true;
        if (!same) findings.push({ what: `hook ${n}`, detail: `${p} was added or changed` });
      }
      return findings;
    },
    async restore() {
      // A .git the agent put in place of the repository's goes aside (git then finds nothing there to run);
      // the original comes back if the run left it in the work tree under another name.
      if (!(await sameDotGit())) {
        const dot = join(workTree, ".git");
        if (await lstat(dot).catch(() => null)) await rename(dot, join(workTree, `.git.replaced-by-run-${randomBytes(4).toString("hex")}`));
        const original = await findByInode(workTree, dirs.dotGit);
        if (original) await rename(original, dot);
        if (!(await sameDotGit())) return; // never written through a .git the agent put in its place
      }
      // A hooks folder swapped for a link: the link goes (never what it leads to), the folder comes back.
      if ((await hooksOf(hooks)).kind === "other") {
        await unlink(hooks);
        await mkdir(hooks, { mode: 0o755 });
      }
      for (const w of watched) {
        await unlink(w.path).catch(() => undefined);
        if (w.bytes) await writeFile(w.path, w.bytes, { flag: "wx", mode: w.mode });
      }
      for (const n of namesOf(await hooksOf(hooks))) {
        const p = join(hooks, n);
        if (!watched.some((w) => w.path === p)) await unlink(p).catch(() => undefined);
      }
    },
  };
}
