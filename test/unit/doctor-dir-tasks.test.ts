// doctor's `dir: tasks` row (issue 50, a new operator's look): `init` writes no workspace.allowedRoots, so every
// `dir:` task was blocked while doctor said "every check passed"; and nothing before the first card said what a
// seat does with a workspace's files hard-linked outside it (agent.isolation.sharedFiles, sharedCopyMaxMiB).
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/agents/kinds.js";
import { dirTasksCheck } from "../../src/cli/doctor-workspace.js";

const seat = (extra: Record<string, unknown> = {}, isolation: Record<string, unknown> = {}) =>
  loadConfig({
    env: {},
    base: { boards: ["b"], assignee: "seat-1", stateDir: "/tmp/hkb-dir-tasks-never-made", agent: { kind: "command", command: ["true"], isolation }, ...extra },
  });

describe("doctor's dir: tasks row", () => {
  it("says that no dir: task can run without allowed roots, and names the key", () => {
    const check = dirTasksCheck(seat(), 1001);
    expect(check.name).toBe("dir: tasks");
    expect(check.ok).toBe(true);
    expect(check.detail).toMatch(/^none allowed: workspace\.allowedRoots is empty, so a task's --workspace dir:\/worktree: is blocked/);
  });

  it("names the roots, and what a plain-user seat does with hard links out of a workspace", () => {
    const roots = { workspace: { allowedRoots: ["/srv/projects"] } };
    expect(dirTasksCheck(seat(roots), 1001).detail).toBe(
      "below /srv/projects; files hard-linked outside a workspace (a local clone's objects, a pnpm store's): private copies before the agent starts, up to 1024 MiB a run (agent.isolation.sharedFiles: copy, sharedCopyMaxMiB)",
    );
    expect(dirTasksCheck(seat(roots, { sharedCopyMaxMiB: 64 }), 1001).detail).toContain("up to 64 MiB a run");
    expect(dirTasksCheck(seat(roots, { sharedFiles: "keep" }), 1001).detail).toMatch(
      /: left linked — the agent can rewrite them at every name \(agent\.isolation\.sharedFiles: keep\)$/,
    );
    expect(dirTasksCheck(seat(roots, { sharedFiles: "keep" }), 0).detail).toMatch(/: kept read-only to the agent \(a bridge run as root\)$/);
  });
});
