// The daemon end to end: emulator board, real fixture agent processes, real webhook server.
import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { hasAllFields } from "../../src/result/template.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { WebhookServer } from "../helpers/webhook.js";

let emu: Emu;
let hook: WebhookServer | undefined;
afterEach(async () => {
  emu?.cleanup();
  await hook?.close();
  hook = undefined;
});

const task = (mode: string, title = mode) => emu.createTask(title, { assignee: SEAT, body: `fixture task MODE:${mode}` });

async function reason(id: string): Promise<string> {
  const d = await emu.show(id);
  return String(d.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");
}

describe("daemon", () => {
  it("completes a task with the common result, key by key", async () => {
    emu = await Emu.create();
    const id = await task("complete");
    const b = await runBridge(emu);
    await b.daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    const run = d.runs.at(-1);
    expect(run?.summary).toBe("Completed complete");
    const m = run?.metadata as Record<string, unknown>;
    expect(m.ok).toBe(true);
    expect(m.status).toBe("ok");
    expect(m.items).toBe(3);
    expect(m.metrics).toEqual({ created: 2, updated: 1, skipped: 0, failed: 0 });
    expect(m.note).toBe("fixture done");
    expect(m.artifacts).toEqual([]);
    expect(m.error).toBeNull();
    const bridge = m.bridge as Record<string, unknown>;
    expect(bridge.trace_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(bridge.seat).toBe(SEAT);
    expect(bridge.agent).toBe("command");
    expect(bridge.run_id).toBe(run?.id);
    expect(new Date(String(bridge.started_at)).toISOString()).toBe(bridge.started_at);
    expect(bridge.duration_ms).toBeTypeOf("number");
    expect(bridge.exit).toEqual({ code: 0, signal: null, reason: "exited" });
    expect(b.built.outbox.backlog()).toBe(0);
  });

  it("blocks with the agent's own template and a kind", async () => {
    emu = await Emu.create();
    const id = await task("block");
    await (await runBridge(emu)).daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("blocked");
    const r = await reason(id);
    expect(hasAllFields(r)).toBe(true);
    expect(r).toMatch(/^cause: spec undecided$/m);
    expect(r).toMatch(/^options: A\) follow spec A; B\) follow spec B$/m);
    expect(d.events.findLast((e) => e.kind === "blocked")?.payload?.kind).toBe("needs_input");
  });

  it.each([
    ["silent", "human decision needed", /protocol violation: the agent exited 0 without asking/],
    ["crash", "environment", /exited with code 3.*fixture: boom/s],
    ["notok", "test failure", /ok=false, status=error, error E_TEST: 3 tests failed/],
    ["badjson", "environment", /outcome file is not valid JSON/],
  ])("a %s agent ends in a templated block (%s)", async (mode, cause, what) => {
    emu = await Emu.create();
    const id = await task(mode);
    await (await runBridge(emu)).daemon.done;
    expect((await emu.show(id)).task.status).toBe("blocked");
    const r = await reason(id);
    expect(hasAllFields(r)).toBe(true);
    expect(r).toMatch(new RegExp(`^cause: ${cause}$`, "m"));
    expect(r).toMatch(what);
  });

  it("stops an agent that hangs past the deadline and blocks it", async () => {
    emu = await Emu.create();
    const id = await task("hang");
    const b = await runBridge(emu, { base: { claim: { ttlSeconds: 30, safetySeconds: 25 }, heartbeat: { intervalSeconds: 1 } } });
    await b.daemon.done;
    const r = await reason(id);
    expect(r).toMatch(/^cause: environment$/m);
    expect(r).toMatch(/did not finish before its deadline/);
    expect(b.reports[0]?.decision).toBe("block");
  });

  it("drains 50 MB of agent stdout and still completes", async () => {
    emu = await Emu.create();
    const id = await task("flood");
    await (await runBridge(emu)).daemon.done;
    expect((await emu.show(id)).task.status).toBe("done");
  });

  it("a lost lease kills the agent; nothing of the lost run lands (no comment either); alert", async () => {
    emu = await Emu.create();
    hook = await WebhookServer.start();
    const id = await task("slow");
    const b = await runBridge(emu, { base: { webhook: { url: hook.url, retries: 0 } } });
    b.daemon.once("heartbeat", async () => {
      emu.advance(7200);
      await emu.kanban(["dispatch", "--json"]);
      emu.advance(0);
    });
    await b.daemon.done;
    const d = await emu.show(id);
    const first = d.runs[0];
    expect(first?.outcome).toBe("reclaimed");
    expect(d.events.filter((e) => e.kind === "completed" && e.run_id === first?.id)).toHaveLength(0);
    expect(d.comments.filter((c) => c.author === SEAT)).toEqual([]);
    expect(b.reports[0]?.close).toBe("lease_lost");
    await hook.waitFor(1);
    expect(hook.received[0]?.json.event).toBe("lease_lost");
    expect(hook.received[0]?.json.task_id).toBe(id);
  });

  it("recovers from transient CLI failures", async () => {
    emu = await Emu.create();
    const id = await task("complete");
    await (await runBridge(emu, { faults: "list:transient:1,claim:transient:1,show:exit0err:1,complete:transient:2" })).daemon.done;
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect(d.events.filter((e) => e.kind === "completed")).toHaveLength(1);
  });

  it("a complete that keeps failing is journaled and a signed alert is sent", async () => {
    emu = await Emu.create();
    hook = await WebhookServer.start();
    const id = await task("complete");
    const b = await runBridge(emu, {
      faults: "complete:transient",
      base: { webhook: { url: hook.url, secretEnv: "HOOK_SECRET", retries: 0 } },
      env: { HOOK_SECRET: "s3cret-hmac-key" },
    });
    await b.daemon.done;
    await hook.waitFor(1);
    const got = hook.received[0];
    expect(got?.json.event).toBe("close_failed");
    expect(got?.json.task_id).toBe(id);
    expect(got?.json.intended_close).toMatchObject({ type: "complete" });
    expect(got?.headers["x-hermes-bridge-signature"]).toBe(
      `sha256=${createHmac("sha256", "s3cret-hmac-key")
        .update(got?.body ?? "")
        .digest("hex")}`,
    );
    expect(b.built.outbox.open().map((e) => e.state)).toEqual(["failed"]);
  });

  it("webhook down → dead letter; replay later applies the close", async () => {
    emu = await Emu.create();
    hook = await WebhookServer.start();
    hook.failing = true;
    const id = await task("complete");
    const b = await runBridge(emu, { faults: "complete:transient", base: { webhook: { url: hook.url, retries: 1 } } });
    await b.daemon.done;
    expect(b.built.outbox.open().map((e) => e.state)).toEqual(["dead"]);
    expect((await emu.show(id)).task.status).toBe("running");
    hook.failing = false;
    const { replayOutbox } = await import("../../src/outbox/replay.js");
    const healthy = await runBridge(emu, { once: true });
    await healthy.daemon.done;
    const items = await replayOutbox(healthy.built.outbox, healthy.built.closer);
    expect(items.map((i) => i.result)).toEqual(["applied"]);
    expect((await emu.show(id)).task.status).toBe("done");
    expect(b.built.outbox.backlog()).toBe(0);
  });

  it("a secret planted in agent output never reaches the board", async () => {
    emu = await Emu.create();
    const secret = "planted-Secret-Value-9f8e7d";
    const ids = [await task("secret", "leaky"), await task("crash", "leaky crash")];
    await (
      await runBridge(emu, {
        env: { FIXTURE_SECRET: secret },
        base: {
          secrets: { env: ["FIXTURE_SECRET"] },
          agent: { kind: "command", command: [process.execPath, (await import("../helpers/bridge.js")).AGENT], passEnv: ["FIXTURE_SECRET"] },
        },
      })
    ).daemon.done;
    for (const id of ids) {
      const text = JSON.stringify(await emu.show(id));
      expect(text).not.toContain(secret);
      expect(text).not.toContain("sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789");
      expect(text).not.toContain("hunter2hunter2");
    }
    expect(JSON.stringify(await emu.show(ids[0] ?? ""))).toContain("[REDACTED]");
  });

  it("gives the agent an allow-listed environment", async () => {
    emu = await Emu.create();
    const id = await task("env");
    await (await runBridge(emu, { env: { HERMES_KANBAN_DB: "/x", WEBHOOK_TOKEN: "t" } })).daemon.done;
    const keys = JSON.parse(String((await emu.show(id)).runs.at(-1)?.metadata?.note)) as string[];
    expect(keys).toContain("HERMES_BRIDGE_TASK_ID");
    expect(keys).toContain("HERMES_BRIDGE_RESULT");
    expect(keys.filter((k) => /^HERMES_(HOME|KANBAN)/.test(k) || k === "WEBHOOK_TOKEN")).toEqual([]);
  });

  it("two daemons racing on 20 tasks claim and close each exactly once", async () => {
    emu = await Emu.create();
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) ids.push(await task("complete", `race ${i}`));
    const a = await runBridge(emu, { stateName: "a", base: { concurrency: 3 } });
    const b = await runBridge(emu, { stateName: "b", base: { concurrency: 3 } });
    await Promise.all([a.daemon.done, b.daemon.done]);
    for (const id of ids) {
      const d = await emu.show(id);
      expect(d.task.status).toBe("done");
      expect(d.runs).toHaveLength(1);
      expect(d.events.filter((e) => e.kind === "claimed")).toHaveLength(1);
      expect(d.events.filter((e) => e.kind === "completed")).toHaveLength(1);
    }
    expect(a.reports.length + b.reports.length).toBe(20);
  });
});
