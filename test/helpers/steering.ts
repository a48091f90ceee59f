// Scenarios of the board talking to a running agent, run on the emulator (test/integration) and on the
// real Hermes CLI (test/real): an operator's reclaim or block stops the agent before its next
// heartbeat would have noticed (default TTL and heartbeat: 120 s), and nothing of that run lands
// afterwards; an operator's comment reaches a command agent's inbox exactly once, the seat's own
// comments never do.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { RunReport } from "../../src/run/task-run.js";
import { AGENT, type Bridge, runBridge, SEAT } from "./bridge.js";
import type { Emu, ShowDoc } from "./emulator.js";

/**
 * For what no event tells — a process of the host gone, a file a jailed process wrote — polls `cond` every
 * 50 ms; throws naming `what` after `ms`. Everything the seat says is awaited on its events (monitor.ts).
 */
export async function untilHost<T>(what: string, cond: () => T | Promise<T>, ms = 20_000): Promise<NonNullable<T>> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The process `pid` exists (signal 0). */
export const alive = (pid: number) => {
  // kill(0 or less, 0) signals a process group (this one): it is no answer about a process.
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`alive(${pid}): not a process id`);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A long-running bridge on `emu` with the fixture agent, at the default TTL and heartbeat unless `base` says otherwise. */
export async function liveBridge(emu: Emu, o: { watch?: boolean; base?: Record<string, unknown>; env?: Record<string, string> } = {}): Promise<Bridge> {
  return runBridge(emu, {
    once: false,
    ...(o.env ? { env: o.env } : {}),
    base: {
      claim: {},
      heartbeat: {},
      discovery: { watch: o.watch ?? true, sweepSeconds: 3600, debounceMs: 20 },
      // the test watches the agent's own pid and files from outside: no jail (its pid namespace, its view); the
      // jail's own steering and stop checks are in test/hostile/jail.test.ts
      agent: {
        kind: "command",
        command: [process.execPath, AGENT],
        killGraceSeconds: 1,
        passEnv: ["FIXTURE_PID_FILE", "FIXTURE_AWAIT_GO"],
        isolation: { mode: "none" },
      },
      ...(o.base ?? {}),
    },
  });
}

/**
 * The operator reclaims or blocks a running task. The run must end (its agent gone) long before the
 * first heartbeat (120 s at the default TTL) — the watch line did it — with nothing of it landing after.
 */
export async function operatorStops(emu: Emu, action: "reclaim" | "block"): Promise<{ report: RunReport; doc: ShowDoc; stopMs: number }> {
  const pidFile = join(emu.dir, "agent.pid");
  const id = await emu.createTask("long job", { assignee: SEAT, body: "MODE:hang" });
  const b = await liveBridge(emu, { env: { FIXTURE_PID_FILE: pidFile } });
  try {
    const beats = () => b.monitor.all("heartbeat", (e) => e.taskId === id).length;
    await b.monitor.next("run:started", (e) => e.taskId === id);
    // The agent's first line (a progress note) comes once its pid is in the file (the fixture writes it first).
    await b.monitor.next("run:progress", (e) => e.taskId === id);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(alive(pid)).toBe(true);
    // Where claims are named (upstream), a block of a card another actor holds needs --force.
    const force = (await emu.board().capabilities()).namedClaims ? ["--force"] : [];
    const t0 = Date.now();
    const r =
      action === "reclaim"
        ? await emu.kanban(["reclaim", id, "--reason", "operator takes it back"])
        : await emu.kanban(["block", id, "operator stop", ...force]);
    expect(r.code, r.stderr).toBe(0);
    const report = await b.monitor.closed(id);
    const stopMs = Date.now() - t0;
    expect(report.decision).toBe("lost");
    // a stop made on the board by hand is an expected event: no outbox entry, no alert, no backlog (issue 49 row 1)
    expect(report.onBoard).toBe(action);
    expect(b.built.outbox.entries()).toEqual([]);
    expect(b.built.outbox.backlog()).toBe(0);
    expect(alive(pid)).toBe(false);
    // No heartbeat ran (the first is one interval, 120 s, after the claim's read): the board event stopped it.
    expect(beats()).toBe(0);
    // Give a late write every chance to land before looking.
    await new Promise((res) => setTimeout(res, 500));
    const doc = await emu.show(id);
    const runId = report.runId;
    const cut = doc.events.findIndex((e) => e.kind === (action === "reclaim" ? "reclaimed" : "blocked"));
    expect(cut).toBeGreaterThanOrEqual(0);
    const after = doc.events.slice(cut + 1).filter((e) => e.run_id === runId || ["heartbeat", "completed", "blocked", "commented"].includes(e.kind));
    expect(after, JSON.stringify(after)).toEqual([]);
    expect(doc.comments.filter((c) => c.author === SEAT)).toEqual([]);
    return { report, doc, stopMs };
  } finally {
    await b.daemon.stop();
    await b.daemon.done.catch(() => undefined);
  }
}

/** A command agent reads an operator's comment from its inbox; the seat's own comment never reaches it. */
export async function noteToInbox(emu: Emu, o: { watch: boolean; base?: Record<string, unknown> }): Promise<{ doc: ShowDoc; b: Bridge }> {
  const id = await emu.createTask("steered job", { assignee: SEAT, body: "MODE:inbox" });
  const b = await liveBridge(emu, { watch: o.watch, env: { FIXTURE_AWAIT_GO: "1" }, ...(o.base ? { base: o.base } : {}) });
  try {
    await b.monitor.phase(id, "working");
    expect((await emu.kanban(["comment", id, "OWN-SEAT-NOTE never for the agent", "--author", SEAT])).code).toBe(0);
    expect((await emu.kanban(["comment", id, "Also update the changelog, please."])).code).toBe(0);
    // `status` names the last note handed to the run.
    await b.monitor.next("run:notes", (e) => e.taskId === id);
    const shown = b.daemon.status().runs.find((r) => r.task === id)?.lastOperatorNote;
    if (!shown) throw new Error("status names no note after one was handed over");
    expect(shown).toMatchObject({ id: "c1", text: "Also update the changelog, please." });
    expect(shown.deliveredAt).not.toBeNull();
    const ws = (await emu.show(id)).task.workspace_path;
    if (!ws) throw new Error("the task has no workspace");
    writeFileSync(join(ws, "go"), "");
    const report = await b.monitor.closed(id);
    expect(report.close).toBe("applied");
    const doc = await emu.show(id);
    const summary = doc.runs.at(-1)?.summary ?? "";
    expect(summary).toContain("Followed the note: c1 from");
    expect(summary).toContain("Also update the changelog, please.");
    expect(summary).not.toContain("OWN-SEAT-NOTE");
    // Delivered once: one note, one line.
    expect(summary.match(/changelog/g)?.length).toBe(1);
    return { doc, b };
  } finally {
    await b.daemon.stop();
    await b.daemon.done.catch(() => undefined);
  }
}

/** The processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return (
          readFileSync(`/proc/${d}/stat`, "utf8")
            .replace(/^.*\) /, "")
            .split(" ")[1] === String(pid)
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

export const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
};
