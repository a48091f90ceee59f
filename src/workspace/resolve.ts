// Which workspace a claimed task gets on this host, and whether it may have it at all. Pure decisions
// (allowed roots, mode choice, path mapping) apart from the existence checks; checkout.ts does git.
import { lstatSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, normalize, resolve, sep } from "node:path";
import type { Lease, Task } from "../board/port.js";
import type { Config } from "../config/schema.js";
import { type GitRunner, prepareCheckout } from "./checkout.js";
import { NOTHING_TO_FINISH, type PreparedWorkspace, type WorkspaceMode, type WorkspaceProvider, WorkspaceRefused } from "./port.js";

export interface WorkspaceSettings {
  mode: Config["workspace"]["mode"];
  allowedRoots: readonly string[];
  pathMap: Readonly<Record<string, string>>;
  localRoot: string;
  repos: Readonly<Record<string, string>>;
  push: boolean;
  /** Hermes roots on the board host (HERMES_HOME): their kanban workspaces are always allowed. */
  hermesHomes: readonly string[];
  seat: string;
}

export function workspaceSettings(c: Config, env: NodeJS.ProcessEnv): WorkspaceSettings {
  const homes = new Set<string>();
  const home = c.hermes.home ?? c.hermes.env.HERMES_HOME ?? env.HERMES_HOME;
  homes.add(home ?? join(homedir(), ".hermes"));
  // A mapped board's Hermes root is a pathMap key (the board host's HERMES_HOME or above it).
  for (const from of Object.keys(c.workspace.pathMap)) homes.add(from);
  return {
    mode: c.workspace.mode,
    allowedRoots: c.workspace.allowedRoots,
    pathMap: c.workspace.pathMap,
    localRoot: c.workspace.localRoot ?? join(c.stateDir, "checkouts"),
    repos: c.workspace.repos,
    push: c.workspace.push,
    hermesHomes: [...homes],
    seat: c.assignee,
  };
}

const under = (root: string, p: string) => {
  const r = normalize(root).replace(/\/+$/, "");
  return p === r || p.startsWith(r + sep);
};

/** The roots (board paths) a task's workspace may be in. */
export function allowedRootsFor(s: WorkspaceSettings): string[] {
  return [...s.hermesHomes.map((h) => join(h, "kanban")), ...s.allowedRoots];
}

/** A scratch workspace is Hermes's own `<board workspaces root>/<task id>`: a task writer cannot choose it. */
export function isHermesScratch(task: Pick<Task, "id" | "workspaceKind">, boardPath: string): boolean {
  const p = normalize(boardPath);
  return task.workspaceKind === "scratch" && p.endsWith(`${sep}workspaces${sep}${task.id}`) && !p.split(sep).includes("..");
}

/** null when the board path is allowed, else the refusal. */
export function rootRefusal(s: WorkspaceSettings, boardPath: string, task?: Pick<Task, "id" | "workspaceKind">): WorkspaceRefused | null {
  if (!isAbsolute(boardPath)) return new WorkspaceRefused(`the workspace path '${boardPath}' is not absolute`, "workspace.allowedRoots");
  if (task && isHermesScratch(task, boardPath)) return null;
  const p = normalize(boardPath);
  const roots = allowedRootsFor(s);
  if (roots.some((r) => under(r, p))) return null;
  return new WorkspaceRefused(
    `the task's workspace ${p} is outside the allowed roots (${roots.join(", ")}); a task may not move the agent there`,
    "workspace.allowedRoots",
  );
}

/** Longest-prefix mapping of a board path to this host, or null. */
export function mapPath(pathMap: Readonly<Record<string, string>>, boardPath: string): { local: string; from: string; to: string } | null {
  const p = normalize(boardPath);
  const entries = Object.entries(pathMap)
    .map(([from, to]) => [normalize(from).replace(/\/+$/, ""), to] as const)
    .filter(([from]) => under(from, p))
    .sort((a, b) => b[0].length - a[0].length);
  const best = entries[0];
  if (!best) return null;
  return { local: join(best[1], p.slice(best[0].length)), from: best[0], to: best[1] };
}

/** The reverse: a local file under a mapped target → its board path. */
export function unmapPath(pathMap: Readonly<Record<string, string>>, local: string): string | null {
  const p = normalize(local);
  const best = Object.entries(pathMap)
    .filter(([, to]) => under(to, p))
    .sort((a, b) => b[1].length - a[1].length)[0];
  return best ? join(normalize(best[0]), p.slice(normalize(best[1]).replace(/\/+$/, "").length)) : null;
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
      if (!isDir(boardPath))
        throw new WorkspaceRefused(
          `workspace.mode board: ${boardPath} does not exist on this host (is the board on another host? use mapped or checkout)`,
          "workspace.mode",
        );
      // The path is the board's; a symlink inside it must not lead the agent out of the allowed roots.
      const real = realpathSync(boardPath);
      const scratch = isHermesScratch(task, boardPath);
      // A scratch workspace must be Hermes's own directory, not a link planted in its place.
      if (scratch && lstatSync(boardPath).isSymbolicLink())
        throw new WorkspaceRefused(`the scratch workspace ${boardPath} is a symbolic link (to ${real})`, "workspace.allowedRoots");
      const escaped = scratch ? null : rootRefusal(this.s, real);
      if (escaped) throw new WorkspaceRefused(`${boardPath} resolves to ${real}, outside the allowed roots`, "workspace.allowedRoots");
      return { mode, local: boardPath, boardPath, why, boardPathOf: (f) => f, finish: async () => NOTHING_TO_FINISH };
    }
    if (mode === "mapped") {
      const m = mapPath(this.s.pathMap, boardPath);
      if (!m) throw new WorkspaceRefused(`workspace.mode mapped: no workspace.pathMap entry covers ${boardPath}`, "workspace.pathMap");
      if (!isDir(m.local))
        throw new WorkspaceRefused(
          `workspace.pathMap entry "${m.from}" → "${m.to}" maps ${boardPath} to ${m.local}, which does not exist on this host`,
          `workspace.pathMap["${m.from}"]`,
        );
      return {
        mode,
        local: m.local,
        boardPath,
        why,
        boardPathOf: (f) => unmapPath(this.s.pathMap, resolve(f)),
        finish: async () => NOTHING_TO_FINISH,
      };
    }
    const local = join(this.s.localRoot, lease.board, lease.taskId);
    const repo = repoFor(this.s, lease.board, task);
    const branch = task.branchName ?? `hermes/${lease.taskId}`;
    return prepareCheckout({ local, boardPath, why, repo, branch, push: this.s.push, seat: this.s.seat, localRoot: this.s.localRoot, git: this.git, signal });
  }
}
