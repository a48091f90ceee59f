// watch: banner, then one repr-formatted line per new event; `(stopped)` on SIGINT; SIGTERM kills
// it silently (hermes-cli-contract.md §4). History is never replayed.
import { pyRepr } from "../pyrepr.js";
import { type Verb, num, prog, str } from "./types.js";

interface EventRow {
  id: number;
  task_id: string;
  kind: string;
  payload: string | null;
  created_at: number;
  assignee: string | null;
  tenant: string | null;
}

function localMinute(epoch: number): string {
  const d = new Date(epoch * 1000);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function formatWatchLine(e: EventRow): string {
  const payload = e.payload ? (JSON.parse(e.payload) as unknown) : null;
  const empty = payload === null || (typeof payload === "object" && Object.keys(payload as object).length === 0);
  return `[${localMinute(e.created_at)}] ${e.task_id.padEnd(10)} ${e.kind.padEnd(18)} (@${e.assignee ?? "-"})${empty ? "" : ` ${pyRepr(payload)}`}`;
}

export function watchVerb(dieAfter: number | null): Verb {
  return {
    spec: {
      prog: prog("watch"),
      options: [
        { flag: "--assignee", dest: "assignee", kind: "value" },
        { flag: "--tenant", dest: "tenant", kind: "value" },
        { flag: "--kinds", dest: "kinds", kind: "value" },
        { flag: "--interval", dest: "interval", kind: "value", type: "float" },
      ],
      positionals: [],
    },
    async run(ctx, v) {
      const intervalMs = Math.max(0.1, num(v, "interval") ?? 0.5) * 1000;
      const kinds =
        str(v, "kinds")
          ?.split(",")
          .map((k) => k.trim())
          .filter(Boolean) ?? null;
      const assignee = str(v, "assignee")?.toLowerCase() ?? null;
      const tenant = str(v, "tenant");
      let cursor = (ctx.db.prepare("SELECT COALESCE(MAX(id), 0) AS m FROM task_events").get() as { m: number }).m;
      let printed = 0;
      process.stdout.on("error", () => {
        process.stderr.write("Traceback (most recent call last):\nBrokenPipeError: [Errno 32] Broken pipe\n");
        process.exit(1);
      });
      process.on("SIGINT", () => {
        process.stdout.write("\n(stopped)\n", () => process.exit(0));
      });
      process.stdout.write("Watching kanban events. Ctrl-C to stop.\n");
      const q = ctx.db.prepare(
        "SELECT e.id, e.task_id, e.kind, e.payload, e.created_at, t.assignee, t.tenant FROM task_events e LEFT JOIN tasks t ON t.id = e.task_id WHERE e.id > ? ORDER BY e.id LIMIT 200",
      );
      for (;;) {
        const rows = q.all(cursor) as EventRow[];
        for (const e of rows) {
          cursor = e.id;
          if (kinds && !kinds.includes(e.kind)) continue;
          if (assignee && e.assignee !== assignee) continue;
          if (tenant && e.tenant !== tenant) continue;
          process.stdout.write(`${formatWatchLine(e)}\n`);
          printed += 1;
          if (dieAfter !== null && printed >= dieAfter) {
            process.stderr.write("Traceback (most recent call last):\nsqlite3.OperationalError: disk I/O error (emulator fault: watch die-after)\n");
            process.exit(1);
          }
        }
        await new Promise((r) => setTimeout(r, intervalMs));
      }
    },
  };
}
