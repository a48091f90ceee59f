// set-model, as Hermes 0.20.0 and 0.21.3 have it (kanban.py _cmd_set_model, kanban_db.set_model_override):
// pins (or, with `none`, clears) the model a task's worker runs, and its provider; allowed while the task
// runs — it applies from the next run. A provider without a model is refused (exit 2).
import { EmuExit, fail } from "../io.js";
import { addEvent, getTask } from "../model.js";
import { type Verb, prog, str, tx } from "./types.js";

export const setModel: Verb = {
  spec: {
    prog: prog("set-model"),
    options: [{ flag: "--provider", dest: "provider", kind: "value" }],
    positionals: [
      { dest: "task_id", nargs: 1 },
      { dest: "model", nargs: "?" },
    ],
  },
  run(ctx, v) {
    const id = str(v, "task_id") ?? "";
    const raw = str(v, "model");
    const model = raw === null || ["none", "-", "null", ""].includes(raw.toLowerCase()) ? null : raw.trim() || null;
    const provider = model === null ? null : str(v, "provider")?.trim() || null;
    if (str(v, "provider")?.trim() && model === null) throw new EmuExit(2, "", "kanban: provider_override requires a model_override\n");
    const found = tx(ctx, () => {
      const t = getTask(ctx.db, id);
      if (!t) return "missing";
      if (t.status === "archived") return "archived";
      ctx.db.prepare("UPDATE tasks SET model_override = ?, provider_override = ? WHERE id = ?").run(model, provider, id);
      addEvent(ctx.db, id, "model_override_set", { model, provider }, ctx.now);
      return "set";
    });
    if (found === "archived") throw new EmuExit(2, "", `kanban: cannot set model override on archived task ${id}\n`);
    if (found === "missing") fail(ctx, `no such task: ${id}`);
    ctx.out(
      model
        ? `Set model override on ${id}: ${provider ? `${provider}:${model}` : model} (applies on next dispatch)\n`
        : `Cleared model override on ${id} (worker uses its profile default)\n`,
    );
  },
};
