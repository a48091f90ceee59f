// Checkout mode: no shared filesystem with the board. With a repository: a cached bare clone per
// remote and a `git worktree` per task on its branch (the task's branch_name or hermes/<task-id>),
// started from the remote branch when one exists (a run cut on another seat pushed its work there).
// At every close what the agent changed is committed and pushed. Credentials in a remote URL are
// used on the command line only, never written where the agent (or the board) can read them.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { redactUrl } from "../result/redact.js";
import { NOTHING_TO_FINISH, type PreparedWorkspace, WorkspaceRefused } from "./port.js";

export interface GitResult {
  ok: boolean;
  out: string;
  err: string;
}

/** Runs git with the bridge's git environment (never the agent's). */
export type GitRunner = (args: readonly string[], o?: { cwd?: string; signal?: AbortSignal | undefined }) => Promise<GitResult>;

export interface CheckoutInput {
  local: string;
  boardPath: string;
  why: string;
  repo: string | null;
  branch: string;
  push: boolean;
  seat: string;
  localRoot: string;
  git: GitRunner;
  signal?: AbortSignal | undefined;
}

const IDENTITY = (seat: string) => ["-c", `user.name=hermes-bridge ${seat}`, "-c", `user.email=${seat}@hermes-bridge.invalid`];

async function must(git: GitRunner, args: readonly string[], what: string, o: { cwd?: string; signal?: AbortSignal | undefined } = {}): Promise<GitResult> {
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
    await must(i.git, ["-C", dir, "remote", "add", "origin", redactUrl(url)], "git remote add", { signal: i.signal });
  }
  await must(i.git, ["-C", dir, "fetch", "--prune", "--quiet", url, "+refs/heads/*:refs/remotes/origin/*"], `git fetch ${redactUrl(url)}`, {
    signal: i.signal,
  });
  return dir;
}

async function defaultStart(i: CheckoutInput, dir: string, url: string): Promise<string> {
  const head = await i.git(["ls-remote", "--symref", url, "HEAD"], { signal: i.signal });
  const ref = /^ref: refs\/heads\/(\S+)\s+HEAD/m.exec(head.out)?.[1];
  if (ref && (await i.git(["-C", dir, "rev-parse", "--verify", "--quiet", `refs/remotes/origin/${ref}`])).ok) return `refs/remotes/origin/${ref}`;
  for (const b of ["main", "master"])
    if ((await i.git(["-C", dir, "rev-parse", "--verify", "--quiet", `refs/remotes/origin/${b}`])).ok) return `refs/remotes/origin/${b}`;
  throw new WorkspaceRefused(`checkout: ${redactUrl(url)} has no default branch to start ${i.branch} from`, "workspace.repos");
}

export async function prepareCheckout(i: CheckoutInput): Promise<PreparedWorkspace> {
  const base = { mode: "checkout" as const, local: i.local, boardPath: i.boardPath, why: i.why, boardPathOf: () => null };
  if (!i.repo) {
    mkdirSync(i.local, { recursive: true, mode: 0o700 });
    return { ...base, finish: async () => NOTHING_TO_FINISH };
  }
  const url = i.repo;
  const dir = await mirror(i, url);
  const remoteBranch = `refs/remotes/origin/${i.branch}`;
  const hasRemote = (await i.git(["-C", dir, "rev-parse", "--verify", "--quiet", remoteBranch], { signal: i.signal })).ok;
  if (existsSync(join(i.local, ".git"))) {
    // This seat ran the task before: keep its work tree; take what another seat pushed since, if it can fast-forward.
    if (hasRemote) await i.git(["-C", i.local, "merge", "--ff-only", "--quiet", remoteBranch], { signal: i.signal });
  } else {
    mkdirSync(join(i.local, ".."), { recursive: true, mode: 0o700 });
    await i.git(["-C", dir, "worktree", "prune"], { signal: i.signal });
    const start = hasRemote ? remoteBranch : await defaultStart(i, dir, url);
    await must(i.git, ["-C", dir, "worktree", "add", "--force", "-B", i.branch, i.local, start], `git worktree add ${i.branch}`, { signal: i.signal });
  }
  return {
    ...base,
    why: `${i.why}; git worktree of ${redactUrl(url)} on ${i.branch}`,
    finish: async ({ kind, message, signal }) => {
      await must(i.git, ["-C", i.local, "add", "-A"], "git add", { signal });
      const dirty = !(await i.git(["-C", i.local, "diff", "--cached", "--quiet"], { signal })).ok;
      if (dirty) await must(i.git, [...IDENTITY(i.seat), "-C", i.local, "commit", "--quiet", "--no-verify", "-m", message], "git commit", { signal });
      const commit = (await must(i.git, ["-C", i.local, "rev-parse", "HEAD"], "git rev-parse", { signal })).out.trim();
      let pushed = false;
      if (i.push) {
        await must(i.git, ["-C", i.local, "push", "--quiet", url, `HEAD:refs/heads/${i.branch}`], `git push to ${redactUrl(url)}`, { signal });
        pushed = true;
      }
      const what = dirty ? (kind === "cut" ? "WIP commit" : "commit") : "no new commit; head";
      return {
        artifacts: [{ type: "git", label: "branch", url: `${redactUrl(url)}#${i.branch}`, commit }],
        note: `${what} ${commit.slice(0, 12)} on ${i.branch}${pushed ? ` pushed to ${redactUrl(url)}` : " (not pushed: workspace.push is off)"}`,
      };
    },
  };
}
