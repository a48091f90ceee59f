// Rows 1, 3 and 4 of the jail issue as scenarios, run on the emulator (test/hostile/jail-rows.test.ts)
// and on the real Hermes CLI (test/real/jail-rows.test.ts), with the jail on and off:
//   1. a task whose workspace is the board's own directory (or another task's scratch dir) never gets
//      an agent, even when the operator's allowed roots cover the whole Hermes home;
//   3. an agent that swaps its note inbox for a link to a host file: a comment never reaches the file;
//   4. …or for a FIFO: the daemon never blocks on it — it keeps answering, the note is handled, the
//      task closes.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { hasAllFields } from "../../src/result/template.js";
import { AGENT, runBridge, SEAT } from "./bridge.js";
import type { Emu } from "./emulator.js";

export type Isolation = "bwrap" | "none";

const agent = (isolation: Isolation, passEnv: string[] = []) => ({
  kind: "command",
  command: [process.execPath, AGENT],
  killGraceSeconds: 1,
  isolation,
  passEnv,
});

/** The board's own directory (where its database lives). */
export function boardDir(e: Emu): string {
  const dir = join(e.home, "kanban", "boards", e.slug);
  if (!readdirSync(dir).some((f) => f.endsWith(".db"))) throw new Error(`no board database in ${dir}`);
  return dir;
}

/** Row 1: `dir:` the board's directory, or another task's scratch dir — blocked before any agent starts. */
export async function boardDirWorkspace(e: Emu, isolation: Isolation): Promise<void> {
  const dir = boardDir(e);
  const other = join(dir, "workspaces", "t_someone_else");
  mkdirSync(other, { recursive: true });
  const ids = [
    await e.createTask("in the board's dir", { assignee: SEAT, body: "MODE:complete", workspace: `dir:${dir}` }),
    await e.createTask("in another task's scratch", { assignee: SEAT, body: "MODE:complete", workspace: `dir:${other}` }),
  ];
  // The operator's allowed roots cover the whole Hermes home: the board's own files are still refused.
  const b = await runBridge(e, { base: { agent: agent(isolation), workspace: { allowedRoots: [e.home] } } });
  await b.daemon.done;
  for (const id of ids) {
    const d = await e.show(id);
    expect(d.task.status).toBe("blocked");
    const reason = String(d.events.findLast((x) => x.kind === "blocked")?.payload?.reason ?? "");
    expect(hasAllFields(reason)).toBe(true);
    expect(reason).toMatch(/workspace\.allowedRoots/);
    expect(reason).toMatch(/is inside .*kanban — the board's own files/);
  }
  // No agent ran there: it would have written out.txt into its workspace.
  expect(existsSync(join(dir, "out.txt"))).toBe(false);
  expect(existsSync(join(other, "out.txt"))).toBe(false);
  expect(b.reports.map((r) => r.decision)).toEqual(["block", "block"]);
}

/**
 * Rows 3/4: the agent swaps its inbox (a link to a host file, or a FIFO), a board user comments; the
 * host file is untouched, the daemon keeps answering and hands the note over, the task completes.
 */
export async function swappedInbox(e: Emu, isolation: Isolation, swap: "link" | "fifo"): Promise<{ summary: string }> {
  const host = join(e.dir, "host-file.txt");
  writeFileSync(host, "the host's own file\n");
  const id = await e.createTask("swapper", { assignee: SEAT, body: "MODE:inbox-swap" });
  const b = await runBridge(e, {
    once: false,
    env: { FIXTURE_SWAP: swap, FIXTURE_TARGET: host },
    base: {
      claim: {},
      heartbeat: {},
      discovery: { watch: true, sweepSeconds: 3600, debounceMs: 20 },
      agent: agent(isolation, ["FIXTURE_SWAP", "FIXTURE_TARGET"]),
    },
  });
  try {
    await b.monitor.next("run:progress", (p) => p.taskId === id && p.note.includes("inbox"));
    expect((await e.kanban(["comment", id, "NOTE-FOR-THE-AGENT: please also update the changelog"])).code).toBe(0);
    // The note was handed over (written through the bridge's own descriptor), and the daemon still answers.
    await b.monitor.next("run:notes", (p) => p.taskId === id);
    expect(b.daemon.status().runs.find((r) => r.task === id)?.lastOperatorNote?.deliveredAt).toBeDefined();
    const ws = (await e.show(id)).task.workspace_path;
    if (!ws) throw new Error("the task has no workspace");
    writeFileSync(join(ws, "go"), "");
    const report = await b.monitor.closed(id);
    expect(report).toMatchObject({ decision: "complete", close: "applied" });
    expect(readFileSync(host, "utf8")).toBe("the host's own file\n");
    return { summary: (await e.show(id)).runs.at(-1)?.summary ?? "" };
  } finally {
    await b.daemon.stop();
  }
}
