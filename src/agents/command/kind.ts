// The command agent kind: any program, speaking the outcome-file protocol.
import { z } from "zod";
import { agentCommon, argv } from "../../config/fields.js";
import { bundledFile } from "../../config/paths.js";
import { processOptions } from "../cli-agent.js";
import { defineKind } from "../kind.js";

export const commandKind = defineKind({
  kind: "command",
  schema: z.strictObject({ kind: z.literal("command"), command: argv, ...agentCommon }),
  stopSignal: "SIGTERM",
  async create(a, ctx) {
    const { CommandAgent } = await import("./adapter.js");
    return new CommandAgent({ ...processOptions(a, ctx), command: a.command });
  },
  preflight: async () => ({ ok: true, detail: "command agent: nothing to check", fix: "" }),
  promptFile: (a) => a.promptFile ?? bundledFile("prompts", "command.md"),
  program: (a) => a.command[0],
});
