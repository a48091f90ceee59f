import { Emu } from "../helpers/emulator.js";
import { boardContract } from "./board-contract.js";

boardContract("HermesCliBoard over the emulator", async () => {
  const emu = await Emu.create();
  return {
    board: (slug) => emu.board(slug ? { slug } : {}),
    seed: (title, assignee, body, o) => emu.createTask(title, { assignee, ...(body ? { body } : {}), ...(o?.maxRuntime ? { maxRuntime: o.maxRuntime } : {}) }),
    attachments: async (id) =>
      JSON.parse((await emu.kanban(["attachments", id, "--json"])).stdout) as { filename: string; size: number; stored_path: string }[],
    expireAndDispatch: async () => {
      emu.advance(7200);
      const r = await emu.kanban(["dispatch", "--json"]);
      emu.advance(0);
      if (r.code !== 0) throw new Error(r.stderr);
    },
    comments: async (id) => (await emu.show(id)).comments,
    cleanup: () => emu.cleanup(),
  };
});
