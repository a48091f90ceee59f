// The Board contract suite: every Board implementation must pass it. Run against the emulator
// (always) and against real Hermes when HERMES_BIN names a command (see real-hermes.test.ts).
import { describe, expect, it } from "vitest";
import type { Board } from "../../src/board/index.js";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BoardNotFound, LeaseLost, NotClaimable, TaskNotFound, maxRuntimeFromContext } from "../../src/board/index.js";
import { TRUNCATION_MARKER } from "../../src/result/text.js";

export interface ContractHarness {
  board(slug?: string): Board;
  /** Creates a ready task assigned to `assignee` without using the Board (the test's own access). */
  seed(title: string, assignee: string, body?: string, o?: { maxRuntime?: string }): Promise<string>;
  /** The task's attachments as the board lists them (`attachments --json`). */
  attachments(taskId: string): Promise<{ filename: string; size: number; stored_path: string }[]>;
  /** Expires the task's claim and runs one dispatcher pass (what a gateway does). */
  expireAndDispatch(taskId: string): Promise<void>;
  comments(taskId: string): Promise<{ author: string; body: string }[]>;
  /** The CLI runs on another host (ssh): a claim's lock does not name this host's claim process. */
  remote?: boolean;
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
        expect(caps.blockKinds).toEqual(expect.arrayContaining(["needs_input", "capability", "transient"]));
        expect(caps.attach).toBe(true);
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

    it("a lease whose run id was never read writes nothing once its claim is gone", async () => {
      h = await setup();
      try {
        const id = await h.seed("unread", A);
        const b = h.board();
        const { lease } = await b.claim(id, 60);
        const unread = { ...lease, runId: null, lock: null };
        await h.expireAndDispatch(id);
        await expect(b.block(unread, { reason: "late" })).rejects.toBeInstanceOf(LeaseLost);
        await expect(b.complete(unread, { summary: "late", metadata: {} })).rejects.toBeInstanceOf(LeaseLost);
        await expect(b.heartbeat(unread, "late")).rejects.toBeInstanceOf(LeaseLost);
        let d = await b.show(id);
        expect(d.task.status).toBe("ready");
        expect(d.runs.map((r) => r.outcome)).toEqual(["reclaimed"]);
        const other = await h.board().claim(id, 600);
        // A replayed close (no lock of its own, its claim long expired) never takes the open run for its own.
        const { claimLock: _, ...noLock } = unread;
        await expect(b.block({ ...noLock, expiresAt: 0 }, { reason: "late replay" })).rejects.toBeInstanceOf(LeaseLost);
        // The claim's own lock names its run even now (locally; through ssh the lock is the board host's).
        if (!h.remote) await expect(b.block(unread, { reason: "late" })).rejects.toBeInstanceOf(LeaseLost);
        d = await b.show(id);
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
      // A watch that never shows the line ends here (and the test fails), not at the suite timeout.
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(new Error("no watch line within 30 s")), 30_000);
      let seen: { kind: string; assignee: string | null } | null = null;
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
            seen = { kind: line.event.kind, assignee: line.event.assignee };
            break;
          }
        }
      } finally {
        clearTimeout(timer);
        ac.abort();
        h.cleanup();
      }
      expect(seen).toEqual({ kind: "created", assignee: A });
    });

    it("a missing board is BoardNotFound", async () => {
      h = await setup();
      try {
        await expect(h.board("no-such-board").listReady({ assignee: A })).rejects.toBeInstanceOf(BoardNotFound);
      } finally {
        h.cleanup();
      }
    });

    it("shows a task's max runtime only in context (what a per-task TTL is read from)", async () => {
      h = await setup();
      try {
        const id = await h.seed("long job", A, undefined, { maxRuntime: "2h" });
        const b = h.board();
        expect(maxRuntimeFromContext(await b.context(id))).toBe(7200);
        expect((await b.listReady({ assignee: A })).find((t) => t.id === id)?.maxRuntimeSeconds).toBeNull();
      } finally {
        h.cleanup();
      }
    });

    it("gives a claim back (release): the task is ready again and claims anew with another TTL; the old lease is fenced out", async () => {
      h = await setup();
      try {
        const id = await h.seed("resize", A, undefined, { maxRuntime: "2h" });
        const b = h.board();
        const first = await b.claim(id, 600);
        await b.release(first.lease, "claiming again with the task's max runtime (--ttl 7260)");
        const again = await b.claim(id, 7260);
        expect(again.lease.runId).not.toBe(first.lease.runId);
        expect(again.lease.ttlSeconds).toBe(7260);
        await expect(b.heartbeat(first.lease, "stale")).rejects.toBeInstanceOf(LeaseLost);
        expect(await b.complete(again.lease, { summary: "done", metadata: { ok: true } })).toBe("applied");
      } finally {
        h.cleanup();
      }
    });

    it("keeps an attached deliverable after complete deletes the scratch workspace", async () => {
      h = await setup();
      try {
        const id = await h.seed("deliver", A);
        const b = h.board();
        const { lease } = await b.claim(id, 600);
        writeFileSync(join(lease.workspace, "report.md"), "# the deliverable\n");
        const att = await b.attach(lease, { path: join(lease.workspace, "report.md"), name: "report.md" });
        expect(att).toMatchObject({ filename: "report.md", size: 18 });
        expect(
          await b.complete(lease, { summary: "done", metadata: { artifacts: [{ type: "file", label: "report", path: "report.md", attachment: att }] } }),
        ).toBe("applied");
        expect(existsSync(lease.workspace)).toBe(false);
        const [kept] = await h.attachments(id);
        expect(kept).toMatchObject({ filename: "report.md", size: 18 });
        expect(readFileSync(kept?.stored_path ?? "", "utf8")).toBe("# the deliverable\n");
        expect((await b.show(id)).runs.at(-1)?.metadata).toMatchObject({ artifacts: [{ path: "report.md", attachment: { id: att.id } }] });
      } finally {
        h.cleanup();
      }
    });

    it("any byte in any text field lands: NUL, ESC, BEL, lone surrogates, long unicode", async () => {
      h = await setup();
      try {
        const id = await h.seed("odd bytes", A);
        const b = h.board();
        const { lease } = await b.claim(id, 600);
        const odd = `a\u0000b\u001b[31mred\u0007 \ud800 ✓ 日本語 \u0085 -x`;
        await b.heartbeat(lease, odd);
        await b.comment(id, A, odd);
        expect(await b.complete(lease, { summary: odd, metadata: { note: odd, [odd]: odd } })).toBe("applied");
        const d = await b.show(id);
        expect(d.task.status).toBe("done");
        expect(d.runs.at(-1)?.summary).toBe("a\\x00b\\x1b[31mred\\x07 \ufffd ✓ 日本語 \\x85 -x");
        expect((await h.comments(id)).at(-1)?.body).toContain("\\x00b");
      } finally {
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
