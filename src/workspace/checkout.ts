// Checkout mode: no shared filesystem with the board. With a repository: a cached bare clone per
// remote (in the state dir) and a `git worktree` per task, started from the remote branch when one
// exists (a run cut on another seat pushed its work there). At every close what the agent changed is
// committed and pushed. Every git call names the repository explicitly (GIT_DIR = the worktree's
// admin dir inside the bridge's clone, GIT_WORK_TREE = the work tree): a `.git` the agent replaced or
// redirected is refused, never followed. The push goes only to a branch the operator allows
// (branchPolicy.ts); a task's own branch outside that is the base, not the target. Credentials in a
// remote URL are used on the command line only, never written where the agent (or the board) can read them.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import type { GitResult, GitRunner } from "../git/runner.js";
import { redactUrl } from "../result/redact.js";
import { readTextInside } from "../agent-files/files.js";
import { type PreparedWorkspace, WorkspaceRefused } from "./port.js";

export interface CheckoutInput {
  local: string;
  boardPath: string;
  why: string;
  repo: string | null;
  /** The branch that gets the work (pushed), and where it starts from when it is new. */
  branch: string;
  base: string | null;
  /** Why the task's own branch is not the target (outside the allowed push branches), for the notes. */
  baseNote: string | null;
  push: boolean;
  seat: string;
  localRoot: string;
  git: GitRunner;
  signal?: AbortSignal | undefined;
}

const IDENTITY = (seat: string) => ["-c", `user.name=hermes-bridge ${seat}`, "-c", `user.email=${seat}@hermes-bridge.invalid`];

async function must(git: GitRunner, args: readonly string[], what: string, o: Parameters<GitRunner>[1] = {}): Promise<GitResult> {
  const r = await git(args, o);
  if (!r.ok) throw new WorkspaceRefused(`checkout: ${what} failed: ${r.err.trim().split("\n").slice(-2).join(" | ") || "no message"}`, "workspace.repos");
  return r;
}

/** The bare clone cached for a remote (fetching refreshes the remote branches). */
async function mirror(i: CheckoutInput, url: string): Promise<string> {
  const dir = join(i.localRoot, ".mirrors", `${createHash("sha256").update(redactUrl(url)).digest("hex").slice(0, 16)}.git`);
  if (!existsSync(dir)) {
    mkdirSync(join(i.localRoot, ".mirrors"), { recursive: true, mode: 0o700 });
    await must(i.git, ["init", "--bare", "--quiet", dir], "git init of the cache", { signal: i.signal });
    await must(i.git, ["remote", "add", "origin", redactUrl(url)], "git remote add", { gitDir: dir, signal: i.signal });
  }
  await must(i.git, ["fetch", "--prune", "--quiet", url, "+refs/heads/*:refs/remotes/origin/*"], `git fetch ${redactUrl(url)}`, {
    gitDir: dir,
    signal: i.signal,
  });
  return dir;
}

async function defaultStart(i: CheckoutInput, dir: string, url: string): Promise<string> {
  const has = async (ref: string) => (await i.git(["rev-parse", "--verify", "--quiet", ref], { gitDir: dir, signal: i.signal })).ok;
  if (i.base && (await has(`refs/remotes/origin/${i.base}`))) return `refs/remotes/origin/${i.base}`;
  const head = await i.git(["ls-remote", "--symref", url, "HEAD"], { signal: i.signal });
  const ref = /^ref: refs\/heads\/(\S+)\s+HEAD/m.exec(head.out)?.[1];
  if (ref && (await has(`refs/remotes/origin/${ref}`))) return `refs/remotes/origin/${ref}`;
  for (const b of ["main", "master"]) if (await has(`refs/remotes/origin/${b}`)) return `refs/remotes/origin/${b}`;
  throw new WorkspaceRefused(`checkout: ${redactUrl(url)} has no default branch to start ${i.branch} from`, "workspace.repos");
}

/** The worktree's admin dir in the clone, found from the clone's side (the work tree's `.git` is the agent's). */
function adminDirOf(cache: string, local: string): string | null {
  const base = join(cache, "worktrees");
  if (!existsSync(base)) return null;
  for (const name of readdirSync(base)) {
    const dir = join(base, name);
    try {
      // Written by git in the bridge's own clone (state dir), never by the agent.
      if (resolve(readFileSync(join(dir, "gitdir"), "utf8").trim()) === resolve(local, ".git")) return dir;
    } catch {
      // not a worktree entry
    }
  }
  return null;
}

/** The work tree's `.git` must still be the file git wrote, pointing at the bridge's admin dir. */
async function checkDotGit(local: string, admin: string): Promise<void> {
  const text = await readTextInside(local, ".git", { maxBytes: 4096 }).catch((err: unknown) => `(${(err as Error).message})`);
  if (text.trim() !== `gitdir: ${admin}`)
    throw new WorkspaceRefused(
      `checkout: the work tree's .git was replaced or redirected (it says ${JSON.stringify(text.trim().slice(0, 200))}); the bridge does not follow it — nothing was committed or pushed`,
      "workspace.repos",
    );
}

export async function prepareCheckout(i: CheckoutInput): Promise<PreparedWorkspace> {
  const base = { mode: "checkout" as const, local: i.local, boardPath: i.boardPath, why: i.why, boardPathOf: () => null, sharedWithBoard: false };
  // Passable (0711, never listable): a bridge running as root runs its agents as another uid, whose
  // bubblewrap must pass these folders to mount the work tree.
  if (!i.repo) {
    mkdirSync(i.local, { recursive: true, mode: 0o711 });
    // Nothing goes anywhere: the card and the summary say where the work is (a board user can act on that).
    const note = `the work stays on ${hostname()} in ${i.local}: ${i.boardPath} is not on this host and workspace.repos names no repository to push it to`;
    return { ...base, finish: async () => ({ artifacts: [], note }) };
  }
  const url = i.repo;
  const cache = await mirror(i, url);
  const remoteBranch = `refs/remotes/origin/${i.branch}`;
  const hasRemote = (await i.git(["rev-parse", "--verify", "--quiet", remoteBranch], { gitDir: cache, signal: i.signal })).ok;
  let admin = adminDirOf(cache, i.local);
  if (admin && existsSync(i.local)) {
    // This seat ran the task before: keep its work tree; take what another seat pushed since, if it can fast-forward.
    await checkDotGit(i.local, admin);
    if (hasRemote) await i.git(["merge", "--ff-only", "--quiet", remoteBranch], { gitDir: admin, workTree: i.local, signal: i.signal });
  } else {
    mkdirSync(join(i.local, ".."), { recursive: true, mode: 0o711 });
    await i.git(["worktree", "prune"], { gitDir: cache, signal: i.signal });
    const start = hasRemote ? remoteBranch : await defaultStart(i, cache, url);
    await must(i.git, ["worktree", "add", "--force", "-B", i.branch, i.local, start], `git worktree add ${i.branch}`, { gitDir: cache, signal: i.signal });
    admin = adminDirOf(cache, i.local);
    if (!admin) throw new WorkspaceRefused(`checkout: git worktree add left no admin dir for ${i.local}`, "workspace.repos");
  }
  const at = admin;
  const onTree = (signal?: AbortSignal) => ({ gitDir: at, workTree: i.local, signal });
  const baseNote = i.baseNote ? `; ${i.baseNote}` : "";
  return {
    ...base,
    why: `${i.why}; git worktree of ${redactUrl(url)} on ${i.branch}${baseNote}`,
    finish: async ({ kind, message, signal }) => {
      await checkDotGit(i.local, at);
      await must(i.git, ["add", "-A"], "git add", onTree(signal));
      const dirty = !(await i.git(["diff", "--cached", "--quiet", "--no-ext-diff"], onTree(signal))).ok;
      if (dirty) await must(i.git, [...IDENTITY(i.seat), "commit", "--quiet", "--no-verify", "-m", message], "git commit", onTree(signal));
      const commit = (await must(i.git, ["rev-parse", "HEAD"], "git rev-parse", onTree(signal))).out.trim();
      let pushed = false;
      if (i.push) {
        await must(i.git, ["push", "--quiet", url, `HEAD:refs/heads/${i.branch}`], `git push to ${redactUrl(url)}`, onTree(signal));
        pushed = true;
      }
      const what = dirty ? (kind === "cut" ? "WIP commit" : "commit") : "no new commit; head";
      return {
        artifacts: [{ type: "git", label: "branch", url: `${redactUrl(url)}#${i.branch}`, commit }],
        note: `${what} ${commit.slice(0, 12)} on ${i.branch}${pushed ? ` pushed to ${redactUrl(url)}` : " (not pushed: workspace.push is off)"}${baseNote}`,
      };
    },
  };
}
