import { Emu } from "../helpers/emulator.js";
import { boardContract } from "./board-contract.js";

boardContract("HermesCliBoard over the emulator", async () => {
  const emu = await Emu.create();
  return {
    board: () => emu.board(),
    seed: (title, assignee, body) => emu.createTask(title, { assignee, ...(body ? { body } : {}) }),
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
