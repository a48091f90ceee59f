// The unit tests' in-memory FakeBoard passes the same Board contract as the CLI adapter: the unit
// tests stand on an honest fake.
import { FakeBoard } from "../helpers/fake-board.js";
import { boardContract } from "./board-contract.js";

boardContract("the in-memory FakeBoard", async () => {
  const boards = new Map<string, FakeBoard>([["b", new FakeBoard("b")]]);
  const main = boards.get("b") as FakeBoard;
  const parse = (d: string) => Number(/^(\d+)h$/.exec(d)?.[1] ?? 0) * 3600;
  return {
    board: (slug) => {
      if (!slug || slug === "b") return main;
      const other = boards.get(slug) ?? new FakeBoard(slug, false);
      boards.set(slug, other);
      return other;
    },
    seed: async (title, assignee, body, o) => {
      const id = main.seed(title, { assignee, ...(body ? { body } : {}), ...(o?.maxRuntime ? { maxRuntime: parse(o.maxRuntime) } : {}) });
      if (o?.claimFailsAfterEffect) main.failAfterClaim.add(id);
      return id;
    },
    attachments: async (id) => main.attachmentsOf(id).map((a) => ({ filename: a.filename, size: a.size, content: a.data.toString("utf8") })),
    expireAndDispatch: async (id) => main.expire(id),
    comments: async (id) => (await main.show(id)).comments,
    cleanup: () => undefined,
  };
});
