// Fault switch for tests (documented in docs/emulator.md): HERMES_EMULATOR_FAULTS="verb:mode[:count|@prob],…"
//   modes: transient (exit 1 "database is locked", nothing done), hang (never answers),
//          exit0err (exit 0, empty stdout, error on stderr — like Hermes v0.14),
//          crash-after (the verb takes effect, then the process dies with a traceback: the answer is lost),
//          die-after=N (watch only: exits 1 after N lines), usage (exit 2, an argparse error: a verb or
//          option this CLI does not have — nothing done),
//          kill-server (under --call-server: the verb takes effect, then the whole server dies before it
//          answers; as a plain process: crash-after), server-hang (under --call-server: the server stops
//          answering anything, its event loop blocked; as a plain process: hang).
//   count: fire on the first N matching calls (shared by all processes of this HERMES_HOME);
//   @prob: fire with that probability. Neither: every call.
import { join } from "node:path";
import { openSqlite } from "./sqlite.js";

export interface Fault {
  verb: string;
  mode: "transient" | "hang" | "exit0err" | "crash-after" | "die-after" | "kill-server" | "server-hang" | "usage";
  count: number | null;
  prob: number | null;
  arg: number | null;
}

export function parseFaults(spec: string | undefined): Fault[] {
  if (!spec) return [];
  const out: Fault[] = [];
  for (const part of spec
    .split(/[,;]/)
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [verb = "", modeRaw = "", countRaw] = part.split(":");
    const [modeName = "", probRaw] = modeRaw.split("@");
    const [mode, argRaw] = modeName.split("=");
    if (!["transient", "hang", "exit0err", "crash-after", "die-after", "kill-server", "server-hang", "usage"].includes(mode ?? ""))
      throw new Error(`HERMES_EMULATOR_FAULTS: unknown mode in '${part}'`);
    out.push({
      verb,
      mode: mode as Fault["mode"],
      count: countRaw ? Number.parseInt(countRaw, 10) : null,
      prob: probRaw ? Number.parseFloat(probRaw) : null,
      arg: argRaw ? Number.parseInt(argRaw, 10) : null,
    });
  }
  return out;
}

/** The fault that fires for this call, if any (consumes one of its counted uses). */
export function pickFault(root: string, faults: Fault[], verb: string): Fault | null {
  for (const [i, f] of faults.entries()) {
    if (f.verb !== verb && f.verb !== "*") continue;
    if (f.prob !== null) {
      if (Math.random() < f.prob) return f;
      continue;
    }
    if (f.count === null) return f;
    const db = openSqlite(join(root, ".emulator-faults.db"));
    try {
      db.pragma("busy_timeout = 10000");
      db.exec("CREATE TABLE IF NOT EXISTS uses (k TEXT PRIMARY KEY, n INTEGER NOT NULL)");
      const key = `${i}:${f.verb}:${f.mode}`;
      const fired = db
        .transaction(() => {
          const row = db.prepare("SELECT n FROM uses WHERE k = ?").get(key) as { n: number } | undefined;
          const n = row?.n ?? 0;
          if (n >= (f.count ?? 0)) return false;
          db.prepare("INSERT INTO uses (k, n) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET n = excluded.n").run(key, n + 1);
          return true;
        })
        .immediate();
      if (fired) return f;
    } finally {
      db.close();
    }
  }
  return null;
}
