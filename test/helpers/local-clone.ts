// A local `git clone` of a one-commit repository, the way users make one: its objects are hard links to the
// source's (the workspace-boundary tests: a root bridge keeps them read-only, a plain one copies them).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** git with a fixed identity and branch; stderr kept (a failure's words are the test's). */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", "-c", "init.defaultBranch=main", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });

/** `base`/source (a repository with one commit) cloned to `base`/projects/app: returns both paths. */
export function localClone(base: string): { source: string; ws: string } {
  const source = join(base, "source");
  const ws = join(base, "projects", "app");
  mkdirSync(source, { recursive: true });
  git(source, "init", "-q");
  writeFileSync(join(source, "README.md"), "# app\n");
  git(source, "add", "-A");
  git(source, "commit", "-qm", "first");
  mkdirSync(join(base, "projects"), { recursive: true });
  git(base, "clone", "-q", source, ws); // a local clone: its objects are hard links to the source's
  return { source, ws };
}
