// The Board contract suite: every Board implementation must pass it. Run against the emulator
// (always) and against real Hermes when HERMES_BIN names a command (see real-hermes.test.ts).
import { describe, expect, it } from "vitest";
import type { Board } from "../../src/board/index.js";
import { LeaseLost, NotClaimable, TaskNotFound, TRUNCATION_MARKER } from "../../src/board/index.js";

export interface ContractHarness {
  board(): Board;
  /** Creates a ready task assigned to `assignee` without using the Board (the test's own access). */
  seed(title: string, assignee: string, body?: string): Promise<string>;
  /** Expires the task's claim and runs one dispatcher pass (what a gateway does). */
  expireAndDispatch(taskId: string): Promise<void>;
  comments(taskId: string): Promise<{ author: string; body: string }[]>;
}

export function boardContract(name: string, setup: () => Promise<ContractHarness & { cleanup(): void }>): void {
  describe(`Board contract: ${name}`, () => {
    let h: ContractHarness & { cleanup(): void };
    const A = "contract-bridge";

    it("lists ready tasks of the assignee, priority first", async () => {
      h = await setup();
      try {
        const a = await h.seed("first", A);
        await h.seed("other seat", "someone-else");
        const list = await h.board().listReady({ assignee: A });
        expect(list.map((t) => t.id)).toEqual([a]);
        expect(list[0]?.status).toBe("ready");
      } finally {
        h.cleanup();
      }
    });

    it("claims, reads the lease, heartbeats, comments and completes fenced", async () => {
      h = await setup();
      try {
        const id = await h.seed("work", A, "the body");
        const b = h.board();
        const { lease, detail } = await b.claim(id, 600);
        expect(lease.runId).toBeTypeOf("number");
        expect(lease.workspace).toContain(id);
        expect(detail?.task.status).toBe("running");
        await b.heartbeat(lease, "halfway");
        await b.comment(id, A, "-starts with a dash and has 'quotes'");
        expect(await b.context(id)).toContain("the body");
        expect(await b.complete(lease, { summary: "done", metadata: { ok: true, items: 1 } })).toBe("applied");
        const d = await b.show(id);
        expect(d.task.status).toBe("done");
        expect(d.runs.at(-1)?.metadata).toEqual({ ok: true, items: 1 });
        expect((await h.comments(id)).map((c) => c.body)).toContain("-starts with a dash and has 'quotes'");
      } finally {
        h.cleanup();
      }
    });

    it("blocks with a kind when supported, reason starting with '-' intact", async () => {
      h = await setup();
      try {
        const id = await h.seed("to block", A);
        const b = h.board();
        const { lease } = await b.claim(id, 600);
        const caps = await b.capabilities();
        expect(caps.jsonVerbs).toEqual(expect.arrayContaining(["list", "show", "create"]));
        expect(await b.block(lease, { reason: "-x needs a human", kind: "needs_input" })).toBe("applied");
        const d = await b.show(id);
        expect(d.task.status).toBe("blocked");
        expect((await h.comments(id)).map((c) => c.body)).toContain("BLOCKED: -x needs a human");
      } finally {
        h.cleanup();
      }
    });

    it("exactly one of six concurrent claims wins", async () => {
      h = await setup();
      try {
        const id = await h.seed("race", A);
        const results = await Promise.allSettled(Array.from({ length: 6 }, () => h.board().claim(id, 600)));
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        for (const r of results.filter((x) => x.status === "rejected")) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(NotClaimable);
      } finally {
        h.cleanup();
      }
    });

    it("fences every lease-bound write after the lease was lost", async () => {
      h = await setup();
      try {
        const id = await h.seed("lost", A);
        const b = h.board();
        const { lease } = await b.claim(id, 60);
        await h.expireAndDispatch(id);
        await expect(b.heartbeat(lease, "late")).rejects.toBeInstanceOf(LeaseLost);
        await expect(b.complete(lease, { summary: "late", metadata: {} })).rejects.toBeInstanceOf(LeaseLost);
        // someone else claims it; our writes must still not land on their run
        const other = await h.board().claim(id, 600);
        await expect(b.block(lease, { reason: "late" })).rejects.toBeInstanceOf(LeaseLost);
        const d = await b.show(id);
        expect(d.task.status).toBe("running");
        expect(d.runs.at(-1)?.id).toBe(other.lease.runId);
      } finally {
        h.cleanup();
      }
    });

    it("a vanished task is TaskNotFound, a lost race NotClaimable", async () => {
      h = await setup();
      try {
        const b = h.board();
        await expect(b.show("t_00000000")).rejects.toBeInstanceOf(TaskNotFound);
        await expect(b.claim("t_00000000", 60)).rejects.toBeInstanceOf(TaskNotFound);
        const id = await h.seed("once", A);
        await b.claim(id, 60);
        const err = await b.claim(id, 60).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(NotClaimable);
        expect((err as Error).message).toMatch(new RegExp(`claim ${id}.*exit 1`));
      } finally {
        h.cleanup();
      }
    });

    it("caps long text with a visible marker instead of hitting the argv limit", async () => {
      h = await setup();
      try {
        const id = await h.seed("long", A);
        await h.board().comment(id, A, "y".repeat(300_000));
        const body = (await h.comments(id)).at(-1)?.body ?? "";
        expect(body.length).toBeLessThan(70_000);
        expect(body).toContain(TRUNCATION_MARKER.split("{n}")[0]?.trim().slice(0, 20));
      } finally {
        h.cleanup();
      }
    });

    it("watch yields a parsed line for a new event of the assignee", async () => {
      h = await setup();
      const ac = new AbortController();
      try {
        const b = h.board();
        let seeded: string | undefined;
        for await (const line of b.watch({ assignee: A, signal: ac.signal })) {
          if (!seeded) {
            // the first line is the banner: watch is now seeded, new events will show
            seeded = await h.seed("watched", A);
            continue;
          }
          if (line.event?.taskId === seeded) {
            expect(line.event.kind).toBe("created");
            expect(line.event.assignee).toBe(A);
            break;
          }
        }
      } finally {
        ac.abort();
        h.cleanup();
      }
    });

    it("creates idempotently", async () => {
      h = await setup();
      try {
        const b = h.board();
        const t1 = await b.createIdempotent({ title: "idem", assignee: A, key: "k-1" });
        const t2 = await b.createIdempotent({ title: "idem again", assignee: A, key: "k-1" });
        expect(t2.id).toBe(t1.id);
      } finally {
        h.cleanup();
      }
    });
  });
}
