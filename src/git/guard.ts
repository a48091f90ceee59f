// A workspace's repository is no door to the host. Its config and hooks are the agent's to edit, and git
// runs what they name whenever anyone runs git there — the operator's next `git status` in a `dir:`
// workspace would run an agent's `core.fsmonitor`, filter or hook on the host, unjailed. So the bridge
// reads what git would use before the agent starts (repos.ts: the work tree's repository, its `.git`
// file or folder and `commondir`, and each submodule git would enter) and again after the run: a key
// that runs code which the run added or changed, a hook it added or changed, a `.git` or `commondir`
// it replaced or redirected, a repository or submodule it made that runs code — each is a finding; the
// close becomes a block naming it. The work tree's own config, hooks and `.git` are put back as they
// were; a repository the run made or changed otherwise is set aside (`.git` renamed), so git finds
// nothing there to run.
import { randomBytes } from "node:crypto";
import { lstat, mkdir, readdir, rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type RepoPrint, MAX_SUBMODULES, codeKeys, repoPrint, submodulesOf } from "./repos.js";
import type { GitRunner } from "./runner.js";

export interface GuardFinding {
  /** What the run left (`core.fsmonitor`, `hook pre-commit`, `.git`, `submodule sub`). */
  what: string;
  detail: string;
}

export interface RepositoryGuard {
  /** What the jail shows read-only (the config and hooks of a `.git` inside the work tree). */
  readonly readOnly: readonly string[];
  /** What the run left that runs code; empty when nothing. */
  check(): Promise<GuardFinding[]>;
  /** Puts the work tree's repository back as it was; sets aside what else the run made that runs code. */
  restore(): Promise<void>;
}

type Git = { git: GitRunner; privateDir: string };

const sameBytes = (a: Buffer | null, b: Buffer | null) => (a === null ? b === null : b !== null && a.equals(b));

/** What `now` runs that `was` did not (null `was`: a repository the run made — everything it runs counts). */
async function compare(was: RepoPrint | null, now: RepoPrint, label: string, g: Git): Promise<GuardFinding[]> {
  const out: GuardFinding[] = [];
  const at = (what: string) => (label ? `${label}: ${what}` : what);
  if (was) {
    const d = was.dotGit;
    const n = now.dotGit;
    if (d.kind !== n.kind || (d.kind === "dir" && (d.dev !== n.dev || d.ino !== n.ino)) || (d.kind === "file" && !sameBytes(d.bytes, n.bytes)))
      return [{ what: at(".git"), detail: `the repository's .git in ${now.workTree} was replaced or redirected during the run` }];
    if (!sameBytes(was.commondir, now.commondir))
      out.push({
        what: at("commondir"),
        detail: `${join(now.gitDir, "commondir")} was added or changed: git would read another repository's config and hooks`,
      });
  } else if (now.commondir) out.push({ what: at("commondir"), detail: `${join(now.gitDir, "commondir")} points git at ${now.common}` });
  for (const [i, c] of now.configs.entries()) {
    if (c.refused) {
      out.push({ what: at("config"), detail: `${c.path} ${c.refused}: git would read whatever it leads to` });
      continue;
    }
    const before = was?.configs[i]?.path === c.path ? await codeKeys(was.configs[i]?.bytes ?? null, g) : new Map<string, string>();
    for (const [key, value] of await codeKeys(c.bytes, g))
      if (before.get(key) !== value) out.push({ what: at(key), detail: `${key} = ${JSON.stringify(value.slice(0, 200))} in ${c.path}` });
  }
  if (now.hooks.kind === "other") out.push({ what: at("hooks"), detail: `${now.hooksDir} is no longer a folder (a link in its place?)` });
  if (now.hooks.kind === "dir") {
    const had = was?.hooks.kind === "dir" ? was.hooks.files : new Map<string, Buffer | null>();
    for (const [n, bytes] of now.hooks.files)
      if (!had.has(n) || !sameBytes(had.get(n) ?? null, bytes)) out.push({ what: at(`hook ${n}`), detail: `${join(now.hooksDir, n)} was added or changed` });
  }
  return out;
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

/** A `.git` git would enter is renamed: nothing of it runs again (the block names where it went). */
async function setAside(workTree: string, why: string): Promise<void> {
  const dot = join(workTree, ".git");
  if (await lstat(dot).catch(() => null)) await rename(dot, join(workTree, `.git.${why}-${randomBytes(4).toString("hex")}`));
}

/** Writes `bytes` (null: removes) at `p`, never through what the run put there (a link is replaced, not followed). */
async function putBack(p: string, bytes: Buffer | null, mode = 0o644): Promise<void> {
  await unlink(p).catch(() => undefined);
  if (bytes) await writeFile(p, bytes, { flag: "wx", mode });
}

/** Reads a work tree's repositories before the agent starts (a work tree with none is watched too: a run may make one). */
export async function guardRepository(workTree: string, g: Git): Promise<RepositoryGuard> {
  const top = await repoPrint(workTree, workTree);
  const subs = new Map<string, RepoPrint | null>();
  if (top) for (const s of await submodulesOf(top, g.git)) subs.set(s, await repoPrint(s, workTree));
  const inWs = top !== null && top.gitDir === join(workTree, ".git");
  const readOnly = inWs && top ? [join(top.gitDir, "config"), join(top.gitDir, "config.worktree"), top.hooksDir, join(top.gitDir, "info")] : [];
  let last: { top: RepoPrint | null; subs: Map<string, RepoPrint | null>; findings: GuardFinding[]; topFound: boolean; subsFound: Set<string> } | null = null;
  const check = async (): Promise<GuardFinding[]> => {
    const findings: GuardFinding[] = [];
    const nowTop = await repoPrint(workTree, workTree);
    let topFound = false;
    if (nowTop) {
      const f = await compare(top, nowTop, top ? "" : "a repository the run made", g);
      topFound = f.length > 0;
      findings.push(...f);
    }
    const subsFound = new Set<string>();
    const nowSubs = new Map<string, RepoPrint | null>();
    if (nowTop && !topFound) {
      const paths = await submodulesOf(nowTop, g.git);
      if (paths.length > MAX_SUBMODULES)
        findings.push({ what: "submodules", detail: `the index records more than ${MAX_SUBMODULES} submodules with a .git of their own` });
      for (const s of paths.slice(0, MAX_SUBMODULES)) {
        const print = await repoPrint(s, workTree);
        nowSubs.set(s, print);
        if (!print) continue;
        const f = await compare(subs.get(s) ?? null, print, `submodule ${s.slice(workTree.length + 1)}`, g);
        if (f.length) subsFound.add(s);
        findings.push(...f);
      }
    }
    last = { top: nowTop, subs: nowSubs, findings, topFound, subsFound };
    return findings;
  };
  return {
    readOnly,
    check,
    async restore() {
      const seen = last ?? (await check().then(() => last));
      if (!seen) return;
      for (const s of seen.subsFound) await setAside(s, "set-aside-by-bridge");
      if (!seen.topFound || !seen.top) return;
      if (!top) return setAside(workTree, "made-by-run");
      const n = seen.top.dotGit;
      const d = top.dotGit;
      if (d.kind !== n.kind || (d.kind === "dir" && (d.dev !== n.dev || d.ino !== n.ino)) || (d.kind === "file" && !sameBytes(d.bytes, n.bytes))) {
        // A .git the agent put in place of the repository's goes aside; the original comes back if the run
        // left it in the work tree under another name (a .git file: its own bytes are written back).
        await setAside(workTree, "replaced-by-run");
        if (d.kind === "file") await putBack(join(workTree, ".git"), d.bytes);
        else {
          const original = await findByInode(workTree, d);
          if (original) await rename(original, join(workTree, ".git"));
        }
        const again = await repoPrint(workTree, workTree);
        // never written through a .git of the agent's
        if (!again || again.gitDir !== top.gitDir || (d.kind === "dir" && again.dotGit.ino !== d.ino)) return;
      }
      if (!sameBytes(top.commondir, seen.top.commondir)) await putBack(join(top.gitDir, "commondir"), top.commondir);
      // A hooks folder swapped for a link: the link goes (never what it leads to), the folder comes back.
      if (seen.top.hooks.kind === "other") {
        await unlink(top.hooksDir);
        await mkdir(top.hooksDir, { mode: 0o755 });
      }
      for (const c of top.configs) await putBack(c.path, c.bytes);
      const had = top.hooks.kind === "dir" ? top.hooks.files : new Map<string, Buffer | null>();
      for (const name of await readdir(top.hooksDir).catch(() => [] as string[])) {
        if (name.endsWith(".sample")) continue;
        await putBack(join(top.hooksDir, name), had.get(name) ?? null, 0o755);
      }
      if (had.size) await mkdir(top.hooksDir, { recursive: true, mode: 0o755 });
      for (const [name, bytes] of had) await putBack(join(top.hooksDir, name), bytes, 0o755);
    },
  };
}
