// Deliverables survive the close: Hermes deletes a scratch workspace on `complete` and keeps only what
// it is told about, so every result artifact with a path is attached to the task first. What is
// attached is never the workspace path (the agent could swap it for a link between a check and
// Hermes's read): the file is copied through the workspace boundary (agent-files/files.ts: no link, one
// hard link, regular, within Hermes's 25 MiB) into a staging dir the CLI can read — the state dir when
// the CLI runs here, a bridge dir next to the task's workspace when it runs on the board host, or an
// upload (workspace.uploadCommand) of the copy in checkout mode. One that cannot be preserved stops
// the complete, naming the file.
import { rm } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import type { Attachment } from "../../board/port.js";
import { LeaseLost } from "../../errors/board.js";
import { describeError } from "../../errors/index.js";
import { runProcess } from "../../process/runner.js";
import type { AgentResult } from "../../result/common.js";
import { escapeControls } from "../../result/text.js";
import { isInside } from "../../agent-files/contain.js";
import { SandboxRefused, lstatInside, safeLeaf, stageCopy } from "../../agent-files/files.js";
import type { PreparedWorkspace } from "../../workspace/port.js";
import type { UploadSpec } from "../context.js";

/** Hermes's attachment limit (KANBAN_ATTACHMENT_MAX_BYTES, 25 MiB in 0.20.0). */
export const ATTACHMENT_MAX_BYTES = 25 * 1024 * 1024;

/** Where staged copies go and how the CLI names them (null: they must be uploaded). */
export interface StagingArea {
  dir: string;
  boardPathOf(local: string): string | null;
}

export interface DeliverDeps {
  /** Attaches a file (a path the CLI can read) to the run's task: the fenced view of the board. */
  attach(file: { path: string; name: string }, signal?: AbortSignal): Promise<Attachment>;
  upload?: UploadSpec | undefined;
  staging: StagingArea;
  taskId: string;
  signal?: AbortSignal;
  /** The run's budget for attachments (agent.budget.tools.attachments): past it the complete is stopped, naming it. */
  budget?: { attach(n: number): string | null } | null | undefined;
}

export type Delivered = { ok: true; artifacts: AgentResult["artifacts"] } | { ok: false; file: string; why: string };

/**
 * The staging area for a run. A workspace that shares no files with the board (checkout) is uploaded
 * (workspace.uploadCommand), or — with no upload configured and the CLI on this host — attached from
 * here. Otherwise the CLI on this host reads the bridge's private dir, and a CLI on the board host reads
 * a bridge dir beside the task's workspace (outside it) through the board or mapped path.
 */
export function stagingArea(ws: PreparedWorkspace, privateDir: string, o: { cliOnThisHost: boolean; upload: boolean }): StagingArea {
  const own = join(privateDir, "staging");
  if (!ws.sharedWithBoard) return { dir: own, boardPathOf: (p) => (o.upload || !o.cliOnThisHost ? null : p) };
  if (o.cliOnThisHost) return { dir: own, boardPathOf: (p) => p };
  return { dir: join(dirname(ws.local), ".hermes-bridge-staging", basename(privateDir)), boardPathOf: (p) => ws.boardPathOf(p) };
}

/** The local file an artifact path names (relative to the workspace, or absolute in the local or board view). */
function localFileOf(ws: PreparedWorkspace, path: string): string {
  if (!isAbsolute(path)) return join(ws.local, path);
  if (path === ws.boardPath || path.startsWith(`${ws.boardPath}/`)) return join(ws.local, relative(ws.boardPath, path));
  return path;
}

/** The name an attachment is stored under: one line, no control characters, capped (Hermes keeps 200). */
export function attachmentName(name: string): string {
  return escapeControls(name).replace(/\s+/g, " ").trim().slice(0, 200) || "deliverable";
}

/** The name a deliverable is uploaded under: the agent chose it, and an upload may hand it to a remote shell. */
export const uploadName = safeLeaf;

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
      `workspace.uploadCommand (${argv[0] ?? "?"}) ${r.reason === "exited" ? `exited ${r.exitCode}` : r.reason}: ${(r.stderr || r.spawnError?.message || "").trim().slice(-300)}`,
    );
  return `${dir.replace(/\/+$/, "")}/${name}`;
}

export async function preserveDeliverables(result: AgentResult, ws: PreparedWorkspace, d: DeliverDeps): Promise<Delivered> {
  try {
    return await deliverAll(result, ws, d);
  } finally {
    // The staged copies were only for the CLI's read (or the upload): nothing of them is kept.
    await rm(d.staging.dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function deliverAll(result: AgentResult, ws: PreparedWorkspace, d: DeliverDeps): Promise<Delivered> {
  const files = result.artifacts.filter((a) => a.path && !a.attachment);
  const over = files.length ? d.budget?.attach(files.length) : null;
  if (over) return { ok: false, file: files.at(-1)?.path ?? "?", why: `it is one of ${over}` };
  const out: AgentResult["artifacts"] = [];
  for (const a of result.artifacts) {
    if (!a.path || a.attachment) {
      out.push(a);
      continue;
    }
    const local = localFileOf(ws, a.path);
    let staged: string;
    try {
      staged = await stageCopy(ws.local, local, d.staging.dir, { maxBytes: ATTACHMENT_MAX_BYTES });
    } catch (err) {
      if (err instanceof SandboxRefused) return { ok: false, file: a.path, why: `it ${err.why}` };
      return { ok: false, file: a.path, why: `it could not be copied for the board: ${describeError(err)}` };
    }
    const name = attachmentName(basename(a.path));
    try {
      const boardFile = d.staging.boardPathOf(staged) ?? (d.upload ? await upload(d.upload, staged, name, d.taskId, d.signal) : null);
      if (boardFile === null) return { ok: false, file: a.path, why: "the board cannot read it (no shared files and no workspace.uploadCommand)" };
      const att = await d.attach({ path: boardFile, name }, d.signal);
      out.push({ ...a, attachment: { id: att.id, filename: att.filename, size: att.size } });
    } catch (err) {
      if (err instanceof LeaseLost) throw err;
      return { ok: false, file: a.path, why: `it could not be attached to the task: ${describeError(err)}` };
    }
  }
  return { ok: true, artifacts: out };
}

/**
 * Files named by absolute workspace path in the summary become declared deliverables, and every such
 * mention becomes workspace-relative: Hermes would otherwise find the path itself, copy what it names
 * and replace the result's artifacts list with bare path strings (hermes-cli-contract: prose artifacts).
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
      if (rel.startsWith("..") || !isInside(ws.local, dirname(local))) return m;
      // Every mention becomes relative (Hermes would promote an absolute one itself, following links);
      // only a regular file (not a link) becomes a declared deliverable.
      if (!lstatInside(ws.local, rel)?.isFile()) return `${rel}${m.slice(path.length)}`;
      if (!known.has(rel)) {
        known.add(rel);
        added.push({ type: "file", label: "named in the summary", path: rel });
      }
      return `${rel}${m.slice(path.length)}`;
    });
  }
  return { summary: out, added };
}
