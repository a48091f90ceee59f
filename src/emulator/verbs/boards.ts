// boards create / list / switch (they ignore --board, like the real CLI): board.json metadata, the
// default board that always exists, task counts, the current-board marker — as Hermes 0.20.0 prints them.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ArgError, type OptSpec, type ParserSpec, parseArgs } from "../argparse.js";
import { EmuExit } from "../io.js";
import { boardLoc, kanbanRoot, openDb } from "../store.js";

const SLUG_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const displayName = (slug: string) =>
  slug
    .replace(/_/g, "-")
    .split("-")
    .filter(Boolean)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1).toLowerCase())
    .join(" ") || slug;

function metaPath(root: string, slug: string): string {
  return join(root, "kanban", "boards", slug, "board.json");
}

function readMeta(root: string, slug: string): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    slug,
    name: displayName(slug),
    description: "",
    icon: "",
    color: "",
    default_workdir: null,
    project_id: null,
    created_at: null,
    archived: false,
  };
  try {
    const raw = JSON.parse(readFileSync(metaPath(root, slug), "utf8")) as unknown;
    if (raw && typeof raw === "object" && !Array.isArray(raw)) Object.assign(meta, raw, { slug });
  } catch {
    // no or malformed board.json: the synthesised entry
  }
  meta.db_path = boardLoc(root, slug).dbPath;
  return meta;
}

function currentBoard(root: string): string {
  try {
    const cur = readFileSync(join(root, "kanban", "current"), "utf8").trim();
    if (cur && (cur === "default" || existsSync(boardLoc(root, cur).dbPath))) return cur;
  } catch {
    // none set
  }
  return "default";
}

function counts(root: string, slug: string, env: NodeJS.ProcessEnv): Record<string, number> {
  const loc = boardLoc(root, slug);
  if (!existsSync(loc.dbPath)) return {};
  const db = openDb(loc, env);
  try {
    return Object.fromEntries(
      (db.prepare("SELECT status, COUNT(*) AS n FROM tasks GROUP BY status").all() as { status: string; n: number }[]).map((r) => [r.status, r.n]),
    );
  } finally {
    db.close();
  }
}

function listBoards(root: string): Record<string, unknown>[] {
  const out = [readMeta(root, "default")];
  const dir = join(root, "kanban", "boards");
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()))) {
    const slug = name.toLowerCase();
    if (!SLUG_RE.test(slug) || slug === "default") continue;
    if (!existsSync(join(dir, name, "kanban.db")) && !existsSync(join(dir, name, "board.json"))) continue;
    out.push(readMeta(root, slug));
  }
  return out;
}

const CREATE: ParserSpec = {
  prog: "hermes kanban boards create",
  options: [
    ...["name", "description", "icon", "color"].map((n): OptSpec => ({ flag: `--${n}`, dest: n, kind: "value" })),
    { flag: "--switch", dest: "switch", kind: "flag" },
    { flag: "--default-workdir", dest: "default_workdir", kind: "value" },
  ],
  positionals: [{ dest: "slug", nargs: 1 }],
};

function create(root: string, env: NodeJS.ProcessEnv, args: string[]): string {
  let v: ReturnType<typeof parseArgs>["values"];
  try {
    v = parseArgs(CREATE, args).values;
  } catch (err) {
    throw new EmuExit(
      2,
      "",
      `usage: hermes kanban boards create [-h] [--name NAME] [--description DESCRIPTION]\n${CREATE.prog}: error: ${(err as ArgError).message}\n`,
    );
  }
  const raw = String(v.slug ?? "");
  const slug = raw.trim().toLowerCase();
  if (!slug) throw new EmuExit(2, "", "kanban boards create: slug is required\n");
  if (!SLUG_RE.test(slug))
    throw new EmuExit(
      2,
      "",
      `kanban boards create: invalid board slug '${raw}': must be 1-64 chars, lowercase alphanumerics / hyphens / underscores, not starting with '-' or '_'\n`,
    );
  const loc = boardLoc(root, slug);
  const already = slug !== "default" && existsSync(loc.dbPath);
  const meta = readMeta(root, slug);
  delete meta.db_path;
  for (const k of ["description", "icon", "color"]) if (typeof v[k] === "string") meta[k] = v[k];
  if (typeof v.name === "string") meta.name = v.name.trim() || displayName(slug);
  if (typeof v.default_workdir === "string") meta.default_workdir = v.default_workdir || null;
  if (!meta.created_at) meta.created_at = Math.floor(Date.now() / 1000);
  mkdirSync(join(root, "kanban", "boards", slug), { recursive: true });
  writeFileSync(metaPath(root, slug), `${JSON.stringify(meta, null, 2)}\n`);
  openDb(loc, env).close();
  const lines = [`Board '${slug}' ${already ? "already exists" : "created"}.`, `  Display name: ${String(meta.name ?? "")}`, `  DB path:      ${loc.dbPath}`];
  if (v.switch) {
    writeFileSync(join(root, "kanban", "current"), `${slug}\n`);
    lines.push(`  Switched to '${slug}'.`);
  } else lines.push(`  Use \`hermes kanban boards switch ${slug}\` to make it current.`);
  return `${lines.join("\n")}\n`;
}

function list(root: string, env: NodeJS.ProcessEnv, args: string[]): string {
  const current = currentBoard(root);
  const boards = listBoards(root)
    .filter((b) => args.includes("--all") || !b.archived)
    .map((b) => {
      const c = counts(root, String(b.slug), env);
      return { ...b, is_current: b.slug === current, counts: c, total: Object.values(c).reduce((n, x) => n + x, 0) } as Record<string, unknown> & {
        is_current: boolean;
        counts: Record<string, number>;
      };
    });
  if (args.includes("--json")) return `${JSON.stringify(boards, null, 2)}\n`;
  const lines = [`${"".padEnd(2)}  ${"SLUG".padEnd(24)}  ${"NAME".padEnd(28)}  COUNTS`];
  for (const b of boards) {
    const cs =
      Object.entries(b.counts)
        .sort(([a], [z]) => a.localeCompare(z))
        .map(([k, n]) => `${k}=${n}`)
        .join(", ") || "(empty)";
    lines.push(
      `${(b.is_current ? "●" : " ").padEnd(2)}  ${String(b.slug).padEnd(24)}  ${`${String(b.name ?? "")}${b.archived ? " [archived]" : ""}`.padEnd(28)}  ${cs}`,
    );
  }
  lines.push("", `Current board: ${current}`);
  if (boards.length > 1) lines.push("Switch boards with `hermes kanban boards switch <slug>`.");
  return `${lines.join("\n")}\n`;
}

/** Boards other than `default` that are not archived (the `list` header counts them). */
export function boardCount(root: string): number {
  return listBoards(root).filter((b) => !b.archived).length;
}

export function boardsCommand(env: NodeJS.ProcessEnv, args: string[]): { out: string; err: string; code: number } {
  const root = kanbanRoot(env);
  const [sub, ...rest] = args;
  try {
    if (sub === "create" || sub === "new") return { out: create(root, env, rest), err: "", code: 0 };
    if (sub === "list" || sub === "ls" || sub === undefined) return { out: list(root, env, rest), err: "", code: 0 };
    if (sub === "switch" || sub === "use") {
      const slug = (rest[0] ?? "").toLowerCase();
      if (slug !== "default" && !existsSync(boardLoc(root, slug).dbPath)) return { out: "", err: `kanban: board '${slug}' does not exist.\n`, code: 1 };
      mkdirSync(join(root, "kanban"), { recursive: true });
      writeFileSync(join(root, "kanban", "current"), `${slug}\n`);
      return { out: `Switched to board '${slug}'.\n`, err: "", code: 0 };
    }
  } catch (err) {
    if (err instanceof EmuExit) return { out: err.stdout, err: err.stderr, code: err.code };
    throw err;
  }
  return { out: "", err: `hermes kanban boards: error: the emulator does not implement 'boards ${sub}'\n`, code: 2 };
}
