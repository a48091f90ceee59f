// Which workspace a claimed task gets on this host, and whether it may have it at all. Pure decisions
// (allowed roots, mode choice, path mapping) apart from the existence checks; checkout.ts does git.
import { type Stats, lstatSync, statSync } from "node:fs";
import { isAbsolute, join, normalize, resolve } from "node:path";
import type { Task } from "../board/port.js";
import type { Lease } from "../lease/lease.js";
import type { GitRunner } from "../git/runner.js";
import { lexicallyUnder, realPathOf, underReal } from "../agent-files/contain.js";
import { type BranchPolicy, pushTarget } from "./branch.js";
import { prepareCheckout } from "./checkout.js";
import { NOTHING_TO_FINISH, type PreparedWorkspace, type WorkspaceMode, type WorkspaceProvider, WorkspaceRefused } from "./port.js";

export interface WorkspaceSettings {
  /** workspace.mode: one of the modes or auto (chosen per task), or one of those per board. */
  mode: WorkspaceMode | "auto" | Record<string, WorkspaceMode | "auto">;
  allowedRoots: readonly string[];
  pathMap: Readonly<Record<string, string>>;
  localRoot: string;
  repos: Readonly<Record<string, string>>;
  push: boolean;
  /** Where checkout mode may push (branchPolicy.ts). */
  branches: BranchPolicy;
  /** Hermes roots on the board host (HERMES_HOME): their own scratch workspaces are allowed, nothing else of their kanban tree. */
  hermesHomes: readonly string[];
  /** The bridge's own dirs (the state dir): never a workspace, nor inside or above one. */
  bridgeDirs?: readonly string[];
  seat: string;
}

/** The roots (board paths) a task's `dir:`/`worktree:` workspace may be in: workspace.allowedRoots, nothing else. */
export function allowedRootsFor(s: WorkspaceSettings): string[] {
  return [...s.allowedRoots];
}

/**
 * What a task's workspace may never be, be inside or be a parent of: any Hermes home's kanban tree (the
 * boards' databases, their dirs, other tasks' scratch dirs — a task's own scratch dir is Hermes's, and
 * checked apart), the bridge's state dir and its checkouts.
 */
export function forbiddenFor(s: WorkspaceSettings): string[] {
  return [...s.hermesHomes.map((h) => join(h, "kanban")), ...(s.bridgeDirs ?? []), s.localRoot];
}

/** Why `p` touches a forbidden root (inside it, or above it), or null; `real`: compare real paths. */
function forbiddenTouch(s: WorkspaceSettings, p: string, real: boolean): string | null {
  for (const f of forbiddenFor(s)) {
    const [root, path] = real ? [realPathOf(f), realPathOf(p)] : [f, p];
    if (real ? underReal(root, path) : lexicallyUnder(root, path)) return `${p} is inside ${f}`;
    if (real ? underReal(path, root) : lexicallyUnder(path, root)) return `${p} contains ${f}`;
  }
  return null;
}

/** A scratch workspace is Hermes's own `<board workspaces root>/<task id>`: a task writer cannot choose it. */
export function isHermesScratch(task: Pick<Task, "id" | "workspaceKind">, boardPath: string): boolean {
  const p = normalize(boardPath);
  return task.workspaceKind === "scratch" && p.endsWith(`/workspaces/${task.id}`) && !p.split("/").includes("..");
}

/** null when the board path is allowed, else the refusal. */
export function rootRefusal(s: WorkspaceSettings, boardPath: string, task?: Pick<Task, "id" | "workspaceKind">): WorkspaceRefused | null {
  if (!isAbsolute(boardPath)) return new WorkspaceRefused(`the workspace path '${boardPath}' is not absolute`, "workspace.allowedRoots");
  if (task && isHermesScratch(task, boardPath)) return null;
  const p = normalize(boardPath);
  const touch = forbiddenTouch(s, p, false);
  if (touch)
    return new WorkspaceRefused(
      `the task's workspace: ${touch} — the board's own files, another task's workspace and the bridge's state are never an agent's workspace`,
      "workspace.allowedRoots",
      { byTask: true },
    );
  const roots = allowedRootsFor(s);
  const root = roots.find((r) => lexicallyUnder(p, r));
  if (root !== undefined) return rootItself(p, root);
  if (roots.some((r) => lexicallyUnder(r, p))) return null;
  return new WorkspaceRefused(
    `the task's workspace ${p} is outside the allowed roots (${roots.length ? roots.join(", ") : "none: workspace.allowedRoots is empty, so no dir:/worktree: path is allowed"}); a task may not move the agent there`,
    "workspace.allowedRoots",
  );
}

/** A workspace that is an allowed root (or holds one) would hold every other task's workspace in it: refused. */
const rootItself = (p: string, root: string) =>
  new WorkspaceRefused(
    `the task's workspace ${p} ${normalize(p) === normalize(root).replace(/(.)\/+$/, "$1") ? "is" : "holds"} the allowed root ${root} itself: a task works in a folder inside an allowed root, never in the one that holds the other tasks' workspaces`,
    "workspace.allowedRoots",
    { byTask: true },
  );

/** Longest-prefix mapping of a board path to this host, or null. */
export function mapPath(pathMap: Readonly<Record<string, string>>, boardPath: string): { local: string; from: string; to: string } | null {
  const p = normalize(boardPath);
  const entries = Object.entries(pathMap)
    .map(([from, to]) => [normalize(from).replace(/\/+$/, "") || "/", to] as const)
    .filter(([from]) => lexicallyUnder(from, p))
    .sort((a, b) => b[0].length - a[0].length);
  const best = entries[0];
  if (!best) return null;
  return { local: join(best[1], p.slice(best[0] === "/" ? 0 : best[0].length)), from: best[0], to: best[1] };
}

/** The reverse: a local file under a mapped target → its board path. */
export function unmapPath(pathMap: Readonly<Record<string, string>>, local: string): string | null {
  const p = normalize(local);
  const best = Object.entries(pathMap)
    .filter(([, to]) => lexicallyUnder(to, p))
    .sort((a, b) => b[1].length - a[1].length)[0];
  return best ? join(normalize(best[0]), p.slice(normalize(best[1]).replace(/\/+$/, "").length)) : null;
}

/** A path that exists and is not a directory is the board's word gone wrong, never "not on this host": refused. */
function notADirectory(p: string, what: string): void {
  let st: Stats;
  try {
    st = statSync(p);
  } catch {
    return;
  }
  if (!st.isDirectory())
    throw new WorkspaceRefused(
      `${what} ${p} exists on this host but is not a directory (${st.isFile() ? "a file" : "not a folder"}): the agent was not started; point the task at a folder (or remove the file) and unblock it`,
      "workspace",
    );
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

export function modeFor(s: WorkspaceSettings, board: string): "auto" | WorkspaceMode {
  return typeof s.mode === "string" ? s.mode : (s.mode[board] ?? "auto");
}

/** The mode `auto` (or the configured mode) picks for a board path, and why. */
export function chooseMode(s: WorkspaceSettings, board: string, task: Pick<Task, "projectId">, boardPath: string): { mode: WorkspaceMode; why: string } {
  const configured = modeFor(s, board);
  if (configured !== "auto") return { mode: configured, why: `workspace.mode is ${configured}` };
  notADirectory(boardPath, "the task's workspace");
  if (isDir(boardPath)) return { mode: "board", why: `the claimed path ${boardPath} exists on this host` };
  const m = mapPath(s.pathMap, boardPath);
  if (m) return { mode: "mapped", why: `workspace.pathMap maps ${m.from} to ${m.to}` };
  return {
    mode: "checkout",
    why: `${boardPath} is not on this host and no workspace.pathMap entry covers it${repoFor(s, board, task) ? "" : " (no repository: an empty local dir)"}`,
  };
}

export function repoFor(s: WorkspaceSettings, board: string, task: Pick<Task, "projectId">): string | null {
  return (task.projectId ? s.repos[task.projectId] : undefined) ?? s.repos[board] ?? null;
}

/** Where an allowed board root is on this host: itself (board mode), or through the path map (mapped mode). */
function localRoots(s: WorkspaceSettings, mapped: boolean): string[] {
  const roots = allowedRootsFor(s);
  if (!mapped) return roots.map(realPathOf);
  const out: string[] = [];
  for (const r of roots) {
    const m = mapPath(s.pathMap, r);
    if (m) out.push(m.local);
    // A map entry below an allowed root: the whole mount is allowed.
    for (const [from, to] of Object.entries(s.pathMap)) if (lexicallyUnder(r, from)) out.push(to);
  }
  return out.map(realPathOf);
}

/**
 * The local directory the agent gets must stay where the board path is allowed to be: links are
 * resolved (in the board view and the mapped view alike) and the real path must be inside a local
 * allowed root; Hermes's own scratch dir must not be a link at all.
 */
function checkLocal(s: WorkspaceSettings, o: { local: string; boardPath: string; task: Task; mapped: boolean }): void {
  const scratch = isHermesScratch(o.task, o.boardPath);
  const real = realPathOf(o.local);
  if (scratch) {
    if (lstatSync(o.local).isSymbolicLink()) throw new WorkspaceRefused(`the scratch workspace ${o.local} is a symbolic link`, "workspace.allowedRoots");
    return;
  }
  const touch = forbiddenTouch(s, o.local, true);
  if (touch) throw new WorkspaceRefused(`${o.boardPath} resolves to ${real} on this host: ${touch}`, "workspace.allowedRoots", { byTask: true });
  const locals = localRoots(s, o.mapped);
  const root = locals.find((r) => underReal(real, r));
  if (root !== undefined) throw rootItself(real, root);
  if (!locals.some((r) => underReal(r, real)))
    throw new WorkspaceRefused(
      `${o.boardPath} resolves to ${real} on this host${o.mapped ? " (through workspace.pathMap)" : ""}, outside the allowed roots`,
      "workspace.allowedRoots",
    );
}

export class LocalWorkspaces implements WorkspaceProvider {
  constructor(
    private readonly s: WorkspaceSettings,
    private readonly git: GitRunner,
  ) {}

  async prepare(lease: Lease, task: Task, signal?: AbortSignal): Promise<PreparedWorkspace> {
    const boardPath = lease.workspace;
    const refused = rootRefusal(this.s, boardPath, task);
    if (refused) throw refused;
    const { mode, why } = chooseMode(this.s, lease.board, task, boardPath);
    if (mode === "board") {
      notADirectory(boardPath, "the task's workspace");
      if (!isDir(boardPath))
        throw new WorkspaceRefused(
          `workspace.mode board: ${boardPath} does not exist on this host (is the board on another host? use mapped or checkout)`,
          "workspace.mode",
        );
      checkLocal(this.s, { local: boardPath, boardPath, task, mapped: false });
      return { mode, local: boardPath, boardPath, why, boardPathOf: (f) => f, sharedWithBoard: true, finish: async () => NOTHING_TO_FINISH };
    }
    if (mode === "mapped") {
      const m = mapPath(this.s.pathMap, boardPath);
      if (!m) throw new WorkspaceRefused(`workspace.mode mapped: no workspace.pathMap entry covers ${boardPath}`, "workspace.pathMap");
      notADirectory(m.local, `workspace.pathMap maps ${boardPath} to`);
      if (!isDir(m.local))
        throw new WorkspaceRefused(
          `workspace.pathMap entry "${m.from}" → "${m.to}" maps ${boardPath} to ${m.local}, which does not exist on this host`,
          `workspace.pathMap["${m.from}"]`,
        );
      checkLocal(this.s, { local: m.local, boardPath, task, mapped: true });
      return {
        mode,
        local: m.local,
        boardPath,
        why,
        boardPathOf: (f) => unmapPath(this.s.pathMap, resolve(f)),
        sharedWithBoard: true,
        finish: async () => NOTHING_TO_FINISH,
      };
    }
    const local = join(this.s.localRoot, lease.board, lease.taskId);
    const repo = repoFor(this.s, lease.board, task);
    const target = pushTarget(this.s.branches, lease.taskId, task.branchName);
    return prepareCheckout({
      local,
      boardPath,
      why,
      repo,
      ...target,
      push: this.s.push,
      seat: this.s.seat,
      localRoot: this.s.localRoot,
      git: this.git,
      signal,
    });
  }
}
