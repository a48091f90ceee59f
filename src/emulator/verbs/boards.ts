// boards create / list (ignore --board, like the real CLI).
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { EmuExit } from "../io.js";
import { boardLoc, kanbanRoot, openDb } from "../store.js";

export function boardsCommand(env: NodeJS.ProcessEnv, args: string[]): { out: string; err: string; code: number } {
  const root = kanbanRoot(env);
  const [sub, ...rest] = args;
  if (sub === "create") {
    const slug = rest.find((a) => !a.startsWith("-"))?.toLowerCase();
    if (!slug || !/^[a-z0-9][a-z0-9_-]{0,63}$/.test(slug))
      throw new EmuExit(2, "", `kanban: invalid board slug '${slug ?? ""}': must be 1-64 chars, lowercase alphanumerics / hyphens / underscores, not starting with '-' or '_'\n`);
    const loc = boardLoc(root, slug);
    if (existsSync(loc.dbPath)) return { out: `Board '${slug}' already exists.\n`, err: "", code: 0 };
    mkdirSync(loc.dir, { recursive: true });
    openDb(loc, env).close();
    const name = slug.charAt(0).toUpperCase() + slug.slice(1);
    return { out: `Board '${slug}' created.\n  Display name: ${name}\n  DB path:      ${loc.dbPath}\n  Use \`hermes kanban boards switch ${slug}\` to make it current.\n`, err: "", code: 0 };
  }
  if (sub === "list") {
    const dir = join(root, "kanban", "boards");
    const slugs = ["default", ...(existsSync(dir) ? readdirSync(dir).filter((d) => existsSync(join(dir, d, "kanban.db"))) : [])];
    if (rest.includes("--json")) return { out: `${JSON.stringify(slugs.map((s) => ({ slug: s, db_path: boardLoc(root, s).dbPath })), null, 2)}\n`, err: "", code: 0 };
    return { out: `${slugs.join("\n")}\n`, err: "", code: 0 };
  }
  throw new EmuExit(2, "", "usage: hermes kanban boards [-h] {list,create,switch} ...\nhermes kanban boards: error: the emulator supports `boards create` and `boards list`\n");
}
