// The Workspace port: where a claimed task's agent and gate run on this host, chosen per board by
// `workspace.mode` — board (the claimed path exists here), mapped (the board's files are mounted at
// another path), checkout (a local working copy: a git worktree on the task's branch, or an empty
// dir). Every mode obeys the allowed roots; a refusal names the path and the setting.
import type { Task } from "../board/port.js";
import type { Lease } from "../lease/lease.js";
import { PermanentError } from "../errors/index.js";

export type { WorkspaceMode } from "../config/schema.js";
import type { WorkspaceMode } from "../config/schema.js";

/** What a close records about the workspace (checkout mode: the pushed branch and commit). */
export interface WorkspaceFinish {
  artifacts: { type: string; label: string; url?: string; path?: string; commit?: string }[];
  /** A fact for the block text / summary ("pushed WIP commit abc123 to hermes/t_1"). */
  note: string | null;
}

export interface PreparedWorkspace {
  mode: WorkspaceMode;
  /** Where the agent and the gate run (this host). */
  local: string;
  /** The path the board knows (claim's `Workspace:`). */
  boardPath: string;
  /** Why this mode (doctor, logs). */
  why: string;
  /** The path on the board host of a local file (for `attach`), or null when it must be uploaded. */
  boardPathOf(localFile: string): string | null;
  /** The board sees these very files (board, mapped); false for a local copy (checkout), which shares none. */
  sharedWithBoard: boolean;
  /** At every close: commit what changed and push (checkout with git), else nothing. */
  finish(o: { kind: "complete" | "cut"; message: string; signal?: AbortSignal }): Promise<WorkspaceFinish>;
}

export interface WorkspaceProvider {
  prepare(lease: Lease, task: Task, signal?: AbortSignal): Promise<PreparedWorkspace>;
}

/** The workspace cannot be used (outside the allowed roots, a bad map, a failed checkout). */
export class WorkspaceRefused extends PermanentError {
  /** No setting may allow it (an allowed root itself, the board's or the bridge's own files): only the task's workspace is wrong. */
  readonly byTask: boolean;
  constructor(
    message: string,
    readonly setting: string,
    options?: { cause?: unknown; byTask?: boolean },
  ) {
    super("workspace_refused", message, options);
    this.byTask = options?.byTask ?? false;
  }
}

export const NOTHING_TO_FINISH: WorkspaceFinish = { artifacts: [], note: null };
