// edit, as Hermes 0.20.0 does it (kanban_db.edit_completed_task_result): backfills the result of a
// done task — the task's result, the summary (and, with --metadata, the metadata) of its latest
// completed run (a run is synthesized when it has none) — and records an `edited` event naming the
// fields. Any board writer can do it: what a card's metadata says is not proof of who wrote it.
import { EmuExit } from "../io.js";
import { addEvent, getTask, synthesizeRun } from "../model.js";
import { type Verb, prog, str, tx } from "./types.js";

export const edit: Verb = {
  spec: {
    prog: prog("edit"),
    options: [
      { flag: "--result", dest: "result", kind: "value" },
      { flag: "--summary", dest: "summary", kind: "value" },
      { flag: "--metadata", dest: "metadata", kind: "value" },
    ],
    positionals: [{ dest: "task_id", nargs: 1 }],
  },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    const result = str(v, "result");
    if (result === null)
      throw new EmuExit(
        2,
        "",
        "usage: hermes kanban edit [-h] --result RESULT [--summary SUMMARY]\n                          [--metadata METADATA]\n                          task_id\nhermes kanban edit: error: the following arguments are required: --result\n",
      );
    const raw = str(v, "metadata");
    let metadata: Record<string, unknown> | null = null;
    if (raw) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch (err) {
        throw new EmuExit(2, "", `kanban: --metadata: ${(err as Error).message}\n`);
      }
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new EmuExit(2, "", "kanban: --metadata: must be a JSON object\n");
      metadata = parsed as Record<string, unknown>;
    }
    const summary = str(v, "summary") ?? result;
    const ok = tx(ctx, () => {
      const t = getTask(ctx.db, id);
      if (!t || t.status !== "done") return false;
      ctx.db.prepare("UPDATE tasks SET result = ? WHERE id = ?").run(result, id);
      const run = ctx.db
        .prepare("SELECT id FROM task_runs WHERE task_id = ? AND outcome = 'completed' ORDER BY COALESCE(ended_at, started_at, 0) DESC, id DESC LIMIT 1")
        .get(id) as { id: number } | undefined;
      let runId = run?.id ?? null;
      if (runId === null) runId = synthesizeRun(ctx, t, "completed", summary, metadata ? JSON.stringify(metadata) : null);
      else {
        ctx.db.prepare("UPDATE task_runs SET summary = ? WHERE id = ?").run(summary, runId);
        if (metadata) ctx.db.prepare("UPDATE task_runs SET metadata = ? WHERE id = ?").run(JSON.stringify(metadata), runId);
      }
      const first = (summary ?? "").trim().split("\n")[0]?.slice(0, 400) ?? "";
      addEvent(
        ctx.db,
        id,
        "edited",
        { fields: ["result", "summary", ...(metadata ? ["metadata"] : [])], result_len: result.length, summary: first || null },
        ctx.now,
        runId,
      );
      return true;
    });
    if (!ok) throw new EmuExit(1, "", `cannot edit ${id} (unknown id or task is not done)\n`);
    ctx.out(`Edited ${id}\n`);
  },
};
