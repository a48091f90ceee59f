// The contract harness over an emulator board: the test's own access to the board (seed, list
// attachments, expire a claim) is the emulator CLI; `board` is the Board under test.
import { readFileSync } from "node:fs";
import type { Board } from "../../src/board/index.js";
import type { Emu } from "../helpers/emulator.js";
import type { ContractHarness } from "./board-contract.js";

export function emulatorHarness(emu: Emu, make: (slug?: string) => Board & { close?(): Promise<void> }): ContractHarness & { cleanup(): Promise<void> } {
  // Every board made is closed at the end (a call server of its own, or a hub's client): nothing outlives the test.
  const made: { close?(): Promise<void> }[] = [];
  const board = (slug?: string) => {
    const b = make(slug);
    made.push(b);
    return b;
  };
  return {
    board,
    seed: (title, assignee, body, o) =>
      emu.createTask(title, {
        assignee,
        ...(body ? { body } : {}),
        ...(o?.maxRuntime ? { maxRuntime: o.maxRuntime } : {}),
        // Hermes claims a `worktree` task with no path, then fails (no default_workdir): exit 1 after the claim.
        ...(o?.claimFailsAfterEffect ? { workspace: "worktree" } : {}),
      }),
    attachments: async (id) =>
      (JSON.parse((await emu.kanban(["attachments", id, "--json"])).stdout) as { filename: string; size: number; stored_path: string }[]).map((a) => ({
        filename: a.filename,
        size: a.size,
        content: readFileSync(a.stored_path, "utf8"),
      })),
    expireAndDispatch: async () => {
      emu.advance(7200);
      const r = await emu.kanban(["dispatch", "--json"]);
      emu.advance(0);
      if (r.code !== 0) throw new Error(r.stderr);
    },
    comments: async (id) => (await emu.show(id)).comments,
    cleanup: async () => {
      await Promise.all(made.map((b) => b.close?.()));
      emu.cleanup();
    },
  };
}
