// The call server is a transport, not another CLI: every verb the bridge uses, run through a plain
// process and through the call server on twin boards, answers the same exit code, stdout and stderr
// byte for byte (task ids, times, locks and the home path normalised). On the emulator always, on real
// Hermes when HERMES_BIN is set (where the server is the bridge's own Python fork server).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HermesCli } from "../../src/board/cli.js";
import { buildCliEnv, type CliEnvOptions } from "../../src/board/env.js";
import { splitCommand } from "../../src/config/command.js";
import { EMULATOR_BIN } from "../helpers/emulator.js";

const targets: [string, string[]][] = [["the emulator", [process.execPath, EMULATOR_BIN]]];
if (process.env.HERMES_BIN) targets.push(["real Hermes", splitCommand(process.env.HERMES_BIN)]);

type Step = { args: string[]; fence?: boolean };

/** One board and its CLI through one transport; `ids` maps this board's task ids to stable names. */
async function twin(command: string[], callServer: "on" | "off") {
  const home = mkdtempSync(join(tmpdir(), "hkb-parity-"));
  const opts: CliEnvOptions = { parent: { PATH: process.env.PATH ?? "" }, passEnv: [], set: { HERMES_HOME: home, HOME: home }, author: "parity-seat" };
  const cli = new HermesCli({ slug: "parity", command, env: opts, callServer, timeoutMs: 60_000 });
  const ids: string[] = [];
  const norm = (text: string) =>
    text
      .replaceAll(home, "<HOME>")
      .replace(/t_[0-9a-f]{8}/g, (id) => {
        if (!ids.includes(id)) ids.push(id);
        return `t_<${ids.indexOf(id)}>`;
      })
      .replace(/("(?:created_at|started_at|completed_at|expires|claim_expires|now|ended_at|last_heartbeat_at)": )\d+/g, "$1<TS>")
      .replace(/\b[\w.-]+:\d{2,8}\b(?=["' )\n]|$)/gm, (m) => (/^(t_|https?)/.test(m) ? m : "<LOCK>"));
  const run = async (s: Step, runId?: number) => {
    const args = s.args.map((a) => a.replace(/\{(\d)\}/g, (_m, i: string) => ids[Number(i)] ?? "t_missing0").replace("{HOME}", home));
    const env = buildCliEnv(opts, s.fence && runId !== undefined ? { taskId: ids[0] ?? "", runId } : undefined);
    const r = await cli.transport.run({ args, env, remoteEnv: {}, timeoutMs: 60_000, captureLimit: 1 << 24 });
    return { args: s.args.join(" "), code: r.exitCode, stdout: norm(r.stdout), stderr: norm(r.stderr) };
  };
  return { home, cli, run, close: () => cli.transport.close().finally(() => rmSync(home, { recursive: true, force: true })) };
}

const STEPS: Step[] = [
  { args: ["--version"] },
  { args: ["kanban", "boards", "create", "parity"] },
  { args: ["kanban", "--help"] },
  { args: ["kanban", "--board=parity", "block", "--help"] },
  { args: ["kanban", "--board=parity", "heartbeat", "--help"] },
  { args: ["kanban", "--board=parity", "create", "--json", "--assignee=seat", "--body=the body", "--", "first"] },
  { args: ["kanban", "--board=parity", "list", "--json", "--status=ready", "--assignee=seat"] },
  { args: ["kanban", "--board=parity", "context", "--", "{0}"] },
  { args: ["kanban", "--board=parity", "claim", "--ttl=600", "--", "{0}"] },
  { args: ["kanban", "--board=parity", "claim", "--ttl=600", "--", "{0}"] },
  { args: ["kanban", "--board=parity", "show", "--json", "--", "{0}"] },
  { args: ["kanban", "--board=parity", "heartbeat", "--note=halfway", "--", "{0}"], fence: true },
  { args: ["kanban", "--board=parity", "comment", "--author=parity-seat", "--", "{0}", "-a comment with 'quotes' ✓"] },
  { args: ["kanban", "--board=parity", "attach", "--name=report.md", "--", "{0}", "{HOME}/report.md"] },
  { args: ["kanban", "--board=parity", "complete", "--summary=done", '--metadata={"ok":true}', "--", "{0}"], fence: true },
  { args: ["kanban", "--board=parity", "complete", "--summary=again", "--", "{0}"], fence: true },
  { args: ["kanban", "--board=parity", "create", "--json", "--assignee=seat", "--", "second"] },
  { args: ["kanban", "--board=parity", "claim", "--ttl=600", "--", "{1}"] },
  { args: ["kanban", "--board=parity", "reclaim", "--reason=given back", "--", "{1}"] },
  { args: ["kanban", "--board=parity", "claim", "--ttl=600", "--", "{1}"] },
  { args: ["kanban", "--board=parity", "block", "--kind=needs_input", "--", "{1}", "-x needs a human"] },
  { args: ["kanban", "--board=parity", "list", "--json", "--status=running", "--assignee=seat"] },
  // reads again, after the writes between (the call server's reused read worker must see them)
  { args: ["kanban", "--board=parity", "show", "--json", "--", "{0}"] },
  { args: ["kanban", "--board=parity", "context", "--", "{1}"] },
  { args: ["kanban", "--board=parity", "show", "--json", "--", "t_00000000"] },
  { args: ["kanban", "--board=parity", "show", "--json", "--", "{1}"] },
  { args: ["kanban", "--board=nope", "list", "--json"] },
  { args: ["kanban", "--board=parity", "frobnicate"] },
];

describe.each(targets)("transport parity on %s", (_name, command) => {
  it("every verb the bridge uses: the call server answers exactly what a plain process does", async () => {
    const a = await twin(command, "off");
    const b = await twin(command, "on");
    try {
      for (const t of [a, b]) writeFileSync(join(t.home, "report.md"), "# report\n");
      expect(b.cli.transport.mode).toBe("server");
      for (const step of STEPS) {
        // the fenced steps are on the first task's first run
        const [x, y] = [await a.run(step, 1), await b.run(step, 1)];
        expect(y, step.args.join(" ")).toEqual(x);
      }
      expect(b.cli.transport.mode).toBe("server");
    } finally {
      await a.close();
      await b.close();
    }
  }, 180_000);
});
