// A corrupt board database and `repair`, as Hermes 0.21.3+ has them (recorded from the real 0.21.3 CLI
// here; hermes_cli/kanban.py `kanban_command`, kanban_ops.py `_cmd_repair`, kanban_db_connect.py
// `KanbanDbCorruptError` / `repair_db`): every verb but `repair` (and `boards`, `init`, `--help`) fails at
// the database's start with `kanban: could not initialize database: Refusing to open corrupt kanban DB at
// <db>: <reason>. Original preserved; backup at <db>.corrupt.<hash>.bak.` (exit 1, nothing done);
// `repair [--json]` runs before that and reports `ok`, `repaired` (an index-only failure, REINDEXed),
// `corrupt` (anything else: fail-closed, exit 1) or `missing`.
// The switch (tests): `<board's kanban.db>.emulator-corrupt` — JSON `{"kind": "page"|"index", "reason": …}`
// (empty: a page-level failure). `index`: `repair` rebuilds the index and the board is healthy again;
// `page`: `repair` refuses, as Hermes does, and the board stays corrupt until the file is removed (an
// operator's manual recovery). The real connect-time guard REINDEXes an index-only failure by itself;
// `index` models one that guard could not (the emulator's own reading: no such recording exists).
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { EmuExit, v021 } from "../io.js";
import type { BoardLoc } from "../store.js";
import type { Verb } from "./types.js";
import { prog } from "./types.js";

const PAGE_REASON = "sqlite refused to open file: database disk image is malformed";
const INDEX_MESSAGE = "row 1 missing from index idx_tasks_status";
const INDEX_REASON = `integrity_check returned '${INDEX_MESSAGE}'; REINDEX auto-repair attempted but integrity_check still returned '${INDEX_MESSAGE}'`;

interface Corruption {
  kind: "page" | "index";
  reason: string;
}

const marker = (loc: BoardLoc) => `${loc.dbPath}.emulator-corrupt`;

/** The board's corruption switch, or null for a healthy board. */
function corruption(loc: BoardLoc): Corruption | null {
  const file = marker(loc);
  if (!existsSync(file)) return null;
  const text = readFileSync(file, "utf8").trim();
  const j = (text ? JSON.parse(text) : {}) as { kind?: unknown; reason?: unknown };
  const kind = j.kind === "index" ? "index" : "page";
  return { kind, reason: typeof j.reason === "string" ? j.reason : kind === "index" ? INDEX_REASON : PAGE_REASON };
}

/** `_backup_corrupt_db`: a content-addressed copy beside the database (one per distinct bytes). */
function backup(dbPath: string): string {
  const db = resolve(dbPath);
  const bytes = existsSync(db) ? readFileSync(db) : Buffer.alloc(0);
  const bak = `${db}.corrupt.${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}.bak`;
  if (!existsSync(bak) && existsSync(db)) copyFileSync(db, bak);
  return bak;
}

/** The connect-time guard: a corrupt board refuses every verb but `repair` (exit 1, nothing done). */
export function corruptGuard(env: NodeJS.ProcessEnv, loc: BoardLoc, verb: string): void {
  if (!v021(env) || verb === "repair") return;
  const c = corruption(loc);
  if (!c) return;
  throw new EmuExit(
    1,
    "",
    `kanban: could not initialize database: Refusing to open corrupt kanban DB at ${resolve(loc.dbPath)}: ${c.reason}. Original preserved; backup at ${backup(loc.dbPath)}.\n`,
  );
}

interface Report {
  status: "ok" | "repaired" | "corrupt" | "missing";
  db_path: string;
  messages: string[];
  post_repair_messages: string[];
  backup_path: string | null;
  reindexed: string[];
}

/** `repair_db`: probe, quarantine first, REINDEX what is index-only. */
function repairDb(loc: BoardLoc): Report {
  const db = resolve(loc.dbPath);
  const none = { messages: [], post_repair_messages: [], backup_path: null, reindexed: [] };
  if (!existsSync(db) || statSync(db).size === 0) return { status: "missing", db_path: db, ...none };
  const c = corruption(loc);
  if (!c) return { status: "ok", db_path: db, ...none, messages: ["ok"] };
  const bak = backup(db);
  if (c.kind === "page")
    return { status: "corrupt", db_path: db, ...none, messages: [c.reason.replace(/^sqlite refused to open file: /, "")], backup_path: bak };
  rmSync(marker(loc), { force: true });
  return { status: "repaired", db_path: db, messages: [INDEX_MESSAGE], post_repair_messages: ["ok"], backup_path: bak, reindexed: ["idx_tasks_status"] };
}

/** Python's json.dumps(…, indent=2, ensure_ascii=True). */
const asciiJson = (v: unknown) => JSON.stringify(v, null, 2).replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);

export const repair: Verb = {
  spec: { prog: prog("repair"), options: [{ flag: "--json", dest: "json", kind: "flag", help: "Emit the repair report as JSON" }], positionals: [] },
  run(ctx, v) {
    const r = repairDb(ctx.loc);
    if (v.json) {
      ctx.out(`${asciiJson(r)}\n`);
      if (r.status === "corrupt") throw new EmuExit(1, "", "");
      return;
    }
    if (r.status === "missing") return ctx.out(`No kanban DB at ${r.db_path} — nothing to repair.\n`);
    if (r.status === "ok") return ctx.out(`${r.db_path}: integrity_check ok — no repair needed.\n`);
    if (r.status === "repaired")
      return ctx.out(`${r.db_path}: repaired.\n  reindexed: ${r.reindexed.join(", ")}\n  pre-repair backup: ${r.backup_path}\n  integrity_check now ok.\n`);
    const lines = [
      `${r.db_path}: CORRUPT.`,
      ...r.messages.slice(0, 10).map((m) => `  ${m}`),
      "  Not an index-only failure — automatic REINDEX repair does not apply (fail-closed).",
      `  corrupt copy quarantined at: ${r.backup_path}`,
      '  Recover manually (copy kanban.db aside FIRST, then run `sqlite3 <copy> ".recover"` into a fresh file — never against the live path, a WAL-reset-vulnerable sqlite3 CLI can corrupt it further) or move the file aside to start a new board.',
    ];
    throw new EmuExit(1, "", `${lines.join("\n")}\n`);
  },
};
