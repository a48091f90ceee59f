// Deliverables survive the close: Hermes deletes a scratch workspace on `complete` and keeps only what
// it is told about, so every result artifact with a path is attached to the task first (where the CLI
// can read it: the board path, a mapped path, or a copy uploaded with workspace.uploadCommand). One
// that cannot be preserved — missing, not a regular file, outside the workspace, too big, or not
// reachable by the board — stops the complete, naming the file.
import { existsSync, lstatSync, realpathSync } from "node:fs";
import { basename, isAbsolute, join, relative } from "node:path";
import type { Attachment, Lease } from "../board/port.js";
import { LeaseLost } from "../errors/board.js";
import { describeError } from "../errors/index.js";
import { runProcess } from "../process/runner.js";
import type { AgentResult } from "../result/common.js";
import { isInside } from "../state/dir.js";
import type { PreparedWorkspace } from "../workspace/port.js";

/** Hermes's attachment limit (KANBAN_ATTACHMENT_MAX_BYTES, 25 MiB in 0.20.0). */
export const ATTACHMENT_MAX_BYTES = 25 * 1024 * 1024;

export interface UploadSpec {
  /** argv with {file} (local path), {name}, {dir} (on the board host), {task}. */
  command: readonly string[];
  dir: string;
  env: Record<string, string>;
  timeoutMs: number;
}

export interface DeliverDeps {
  attach(lease: Lease, file: { path: string; name: string }, signal?: AbortSignal): Promise<Attachment>;
  upload?: UploadSpec | undefined;
  signal?: AbortSignal;
}

export type Delivered = { ok: true; artifacts: AgentResult["artifacts"] } | { ok: false; file: string; why: string };

/** The local file an artifact path names (relative to the workspace, or absolute in the local or board view). */
function localFileOf(ws: PreparedWorkspace, path: string): string {
  if (!isAbsolute(path)) return join(ws.local, path);
  if (path === ws.boardPath || path.startsWith(`${ws.boardPath}/`)) return join(ws.local, relative(ws.boardPath, path));
  return path;
}

function check(ws: PreparedWorkspace, file: string): string | null {
  if (!isInside(ws.local, file)) return "it is outside the workspace";
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(realpathSync(file));
  } catch {
    return "it does not exist";
  }
  if (!st.isFile()) return "it is not a regular file";
  if (st.size > ATTACHMENT_MAX_BYTES) return `it is ${st.size} bytes, more than Hermes's ${ATTACHMENT_MAX_BYTES}-byte attachment limit`;
  return null;
}

/**
 * The name a deliverable is uploaded under: the agent chose the file's name (untrusted), and an upload
 * command may hand it to a remote shell (legacy scp) or read it as an option — so only [A-Za-z0-9._-],
 * never a leading '-' or '.'. The attachment keeps the original name.
 */
export function uploadName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^[-.]+/, "_") || "_";
}

async function upload(u: UploadSpec, file: string, original: string, taskId: string, signal?: AbortSignal): Promise<string> {
  const name = uploadName(original);
  const dir = u.dir.replace(/\{task\}/g, taskId);
  const argv = u.command.map((a) =>
    a
      .replace(/\{file\}/g, file)
      .replace(/\{name\}/g, name)
      .replace(/\{dir\}/g, dir)
      .replace(/\{task\}/g, taskId),
  );
  const r = await runProcess({ argv, env: u.env, timeoutMs: u.timeoutMs, signal, captureLimit: 64 * 1024 });
  if (r.reason !== "exited" || r.exitCode !== 0)
    throw new Error(
      `workspace.uploadCommand (${argv.join(" ")}) ${r.reason === "exited" ? `exited ${r.exitCode}` : r.reason}: ${(r.stderr || r.spawnError?.message || "").trim().slice(-300)}`,
    );
  return `${dir.replace(/\/+$/, "")}/${name}`;
}

export async function preserveDeliverables(result: AgentResult, ws: PreparedWorkspace, lease: Lease, d: DeliverDeps): Promise<Delivered> {
  const out: AgentResult["artifacts"] = [];
  for (const a of result.artifacts) {
    if (!a.path || a.attachment) {
      out.push(a);
      continue;
    }
    const local = localFileOf(ws, a.path);
    const bad = check(ws, local);
    if (bad) return { ok: false, file: a.path, why: bad };
    const name = basename(a.path);
    try {
      const boardFile =
        ws.boardPathOf(realpathSync(local)) ?? (d.upload ? await upload(d.upload, realpathSync(local), name, lease.taskId, d.signal) : realpathSync(local));
      const att = await d.attach(lease, { path: boardFile, name }, d.signal);
      out.push({ ...a, attachment: { id: att.id, filename: att.filename, size: att.size } });
    } catch (err) {
      if (err instanceof LeaseLost) throw err;
      return { ok: false, file: a.path, why: `it could not be attached to the task: ${describeError(err)}` };
    }
  }
  return { ok: true, artifacts: out };
}

/**
 * Files named by absolute workspace path in the summary become declared deliverables, and the mention
 * becomes workspace-relative: Hermes would otherwise find the path itself and replace the result's
 * artifacts list with bare path strings (hermes-cli-contract: prose artifacts on complete).
 */
export function proseDeliverables(
  summary: string,
  ws: Pick<PreparedWorkspace, "local" | "boardPath">,
  declared: AgentResult["artifacts"],
): { summary: string; added: AgentResult["artifacts"] } {
  const added: AgentResult["artifacts"] = [];
  const known = new Set(declared.map((a) => a.path).filter((p): p is string => typeof p === "string"));
  let out = summary;
  for (const root of new Set([ws.boardPath, ws.local])) {
    const re = new RegExp(`${root.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/[^\\s\`"'<>]+`, "g");
    out = out.replace(re, (m) => {
      const path = m.replace(/[.,;:!?)\]}]+$/, "");
      const rel = relative(root, path);
      const local = join(ws.local, rel);
      if (!isInside(ws.local, local) || !existsSync(local) || !lstatSync(local).isFile()) return m;
      if (!known.has(rel)) {
        known.add(rel);
        added.push({ type: "file", label: "named in the summary", path: rel });
      }
      return `${rel}${m.slice(path.length)}`;
    });
  }
  return { summary: out, added };
}
