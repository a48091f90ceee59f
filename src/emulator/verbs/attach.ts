// attach / attachments, and the attachment store that `complete` also uses to keep scratch
// deliverables (Hermes 0.20.0: store_attachment_bytes, 25 MB cap, sanitised names, "name (1).ext"
// on a collision; complete's copies use "stem_1.ext").
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { EmuExit, fail } from "../io.js";
import { addEvent, getTask, profileAuthor } from "../model.js";
import { boardHostPath, shownPath } from "../remote.js";
import type { Db } from "../store.js";
import { type Verb, prog, str } from "./types.js";

/** KANBAN_ATTACHMENT_MAX_BYTES */
export const ATTACHMENT_MAX_BYTES = 25 * 1024 * 1024;

const MIME: Record<string, string> = {
  ".md": "text/markdown",
  ".txt": "text/plain",
  ".json": "application/json",
  ".pdf": "application/pdf",
  ".png": "image/png",
  ".csv": "text/csv",
  ".html": "text/html",
};

export function attachmentsDir(boardDir: string, taskId: string): string {
  return join(boardDir, "attachments", taskId);
}

/** _safe_attachment_name: the leaf, printable, no leading dots, ≤ 200 chars. */
function safeName(raw: string): string | null {
  const leaf = (raw ?? "").replace(/\\/g, "/").split("/").pop()?.trim() ?? "";
  const printable = [...leaf]
    .filter((ch) => !/[\u0000-\u001f\u007f-\u009f]/.test(ch))
    .join("")
    .trim();
  const name = printable.replace(/^\.+/, "").trim();
  return name ? name.slice(0, 200) : null;
}

/** `foo.pdf` → `foo (1).pdf` … (split at the first dot, like str.partition). */
function collisionFree(dir: string, name: string): string {
  const dot = name.indexOf(".");
  const [stem, ext] = dot === -1 ? [name, ""] : [name.slice(0, dot), name.slice(dot)];
  let candidate = name;
  for (let n = 1; existsSync(join(dir, candidate)); n += 1) candidate = `${stem} (${n})${ext}`;
  return candidate;
}

export function recordAttachment(
  db: Db,
  taskId: string,
  o: { filename: string; storedPath: string; size: number; contentType: string | null; by: string; now: number },
): number {
  const r = db
    .prepare("INSERT INTO task_attachments (task_id, filename, stored_path, content_type, size, uploaded_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .run(taskId, o.filename, o.storedPath, o.contentType, o.size, o.by, o.now);
  addEvent(db, taskId, "attached", { filename: o.filename, size: o.size, by: o.by }, o.now);
  return Number(r.lastInsertRowid);
}

export const attach: Verb = {
  spec: {
    prog: prog("attach"),
    options: [
      { flag: "--content-type", dest: "content_type", kind: "value", metavar: "CONTENT_TYPE" },
      { flag: "--name", dest: "name", kind: "value" },
      { flag: "--author", dest: "author", kind: "value" },
    ],
    positionals: [
      { dest: "task_id", nargs: 1 },
      { dest: "path", nargs: 1 },
    ],
  },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    const given = str(v, "path") ?? "";
    const src = boardHostPath(ctx.env, given.replace(/^~(?=\/|$)/, ctx.env.HOME ?? "~"));
    if (!existsSync(src) || !statSync(src).isFile()) fail(ctx, `kanban: no such file: ${given}`);
    const data = readFileSync(src);
    const name = str(v, "name") ?? basename(src);
    const contentType = str(v, "content_type") ?? MIME[extname(name).toLowerCase()] ?? null;
    if (data.length > ATTACHMENT_MAX_BYTES) fail(ctx, "kanban: attachment exceeds 25 MB limit");
    const safe = safeName(name);
    if (!safe) throw new EmuExit(1, "", "Traceback (most recent call last):\nValueError: invalid attachment filename\n");
    if (!getTask(ctx.db, id)) fail(ctx, `kanban: unknown task ${id}`);
    const dir = attachmentsDir(ctx.loc.dir, id);
    mkdirSync(dir, { recursive: true });
    const filename = collisionFree(dir, safe);
    copyFileSync(src, join(dir, filename));
    const attId = recordAttachment(ctx.db, id, {
      filename,
      storedPath: join(dir, filename),
      size: data.length,
      contentType,
      by: str(v, "author") || profileAuthor(ctx.env),
      now: ctx.now,
    });
    // Hermes 0.20.0 prints the name as given (kanban.py _cmd_attach), not the stored (sanitised) one.
    ctx.out(`Attached ${name} to ${id} (attachment ${attId}, ${data.length} bytes)\n`);
  },
};

export const attachments: Verb = {
  spec: { prog: prog("attachments"), options: [{ flag: "--json", dest: "json", kind: "flag" }], positionals: [{ dest: "task_id", nargs: 1 }] },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    if (!getTask(ctx.db, id)) fail(ctx, `no such task: ${id}`);
    const rows = ctx.db.prepare("SELECT * FROM task_attachments WHERE task_id = ? ORDER BY id").all(id) as {
      id: number;
      filename: string;
      content_type: string | null;
      size: number;
      uploaded_by: string | null;
      stored_path: string;
      created_at: number;
    }[];
    const shown = rows.map((a) => ({ ...a, stored_path: shownPath(ctx.env, a.stored_path) }));
    if (v.json) {
      ctx.out(
        `${JSON.stringify(
          shown.map((a) => ({
            id: a.id,
            filename: a.filename,
            content_type: a.content_type,
            size: a.size,
            uploaded_by: a.uploaded_by,
            stored_path: a.stored_path,
            created_at: a.created_at,
          })),
          null,
          2,
        )}\n`,
      );
      return;
    }
    if (shown.length === 0) {
      ctx.out(`No attachments on ${id}\n`);
      return;
    }
    ctx.out(`Attachments on ${id}:\n`);
    for (const a of shown)
      ctx.out(`  [${a.id}] ${a.filename}  (${a.size} bytes, ${a.content_type ?? "-"}, by ${a.uploaded_by || "-"})\n        ${a.stored_path}\n`);
  },
};
