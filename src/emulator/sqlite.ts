// The emulator's database driver, loaded when a board is first opened. better-sqlite3 is a native
// module and an optional dependency: only the bundled emulator uses it, so a seat installed without
// it (`npm install --omit=optional`, no compiler, no prebuilt binary) runs the daemon against a real
// Hermes board, and only the emulator — the demo, the tests — says what is missing.
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import { EmuExit } from "./io.js";

export type Db = BetterSqlite3.Database;

let driver: typeof BetterSqlite3 | undefined;

/** Opens (creating) a SQLite file; exit 1 naming better-sqlite3 when the driver is not there. */
export function openSqlite(path: string): Db {
  driver ??= loadDriver();
  return new driver(path);
}

function loadDriver(): typeof BetterSqlite3 {
  try {
    return createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why =
      e.code === "MODULE_NOT_FOUND"
        ? "which is not installed"
        : `which is installed but did not load (${e.message.split("\n")[0] ?? ""}; \`npm rebuild better-sqlite3\` builds it for this Node)`;
    throw new EmuExit(
      1,
      "",
      `hermes-kanban-emulator: the bundled emulator needs better-sqlite3, an optional dependency of hermes-kanban-bridge, ${why}. ` +
        "Install it beside the bridge (`npm install better-sqlite3`, the version in the bridge's optionalDependencies), or install the bridge " +
        "without --omit=optional. The bridge daemon itself does not need it: a seat on a real Hermes board runs without.\n",
    );
  }
}
