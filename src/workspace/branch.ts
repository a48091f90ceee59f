// Which branch gets a checkout's work: the operator decides where the seat's credentials push
// (workspace.branchPrefix, default `hermes/`, or a branch named in workspace.pushBranches). A task's
// own branch_name (task text: anyone who can write to the board chose it) outside that is used as the
// base the work starts from, never as the push target; the notes say which branch got the work.

export interface BranchPolicy {
  prefix: string;
  allowed: readonly string[];
}

/** A branch name git takes as a plain name: no option look-alike, no `..`, no odd bytes. */
export function isSafeBranch(b: string): boolean {
  return (
    /^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(b) &&
    !b.includes("..") &&
    !b.includes("//") &&
    !b.endsWith("/") &&
    !b.endsWith(".lock") &&
    !b.endsWith(".") &&
    b.length <= 200
  );
}

export function mayPush(p: BranchPolicy, branch: string): boolean {
  return isSafeBranch(branch) && (branch.startsWith(p.prefix) || p.allowed.includes(branch));
}

export function pushTarget(p: BranchPolicy, taskId: string, wanted: string | null): { branch: string; base: string | null; baseNote: string | null } {
  const own = `${p.prefix}${taskId}`;
  if (!wanted) return { branch: own, base: null, baseNote: null };
  if (mayPush(p, wanted)) return { branch: wanted, base: null, baseNote: null };
  if (!isSafeBranch(wanted))
    return { branch: own, base: null, baseNote: `the task's branch name ${JSON.stringify(wanted.slice(0, 100))} is not a plain branch name: ignored` };
  return {
    branch: own,
    base: wanted,
    baseNote: `the task's branch ${wanted} is outside workspace.branchPrefix (${p.prefix}) and workspace.pushBranches: it is the base, the work is on ${own}`,
  };
}
