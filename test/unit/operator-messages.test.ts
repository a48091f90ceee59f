// Messages an operator reads: one sentence per cause in an error chain, a missing hermes program named
// as missing, "is required" for a missing key, unknown HERMES_BRIDGE_* variables with a did-you-mean
// (flags and nested keys), and a run's log decision naming what its close did.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_PROTOCOL_VARS } from "../../src/config/env-check.js";
import { FLAGS, envNameFor } from "../../src/config/flags.js";
import { loadConfig } from "../../src/agents/kinds.js";
import { classify } from "../../src/board/classify.js";
import { loadOpsConfig } from "../../src/config/load.js";
import { outcomeOf } from "../../src/daemon/events.js";
import { CliUnavailable, UsageError } from "../../src/errors/board.js";
import { ConfigError, ExitError, describeError } from "../../src/errors/index.js";
import type { RunResult } from "../../src/process/runner.js";

const exited = (exitCode: number, stderr: string, argv = ["python3", "/opt/hermes/hermes"]): RunResult => ({
  argv: [...argv, "kanban", "list"],
  pid: 1,
  exitCode,
  signal: null,
  stdout: "",
  stderr,
  stdoutTruncated: false,
  stdoutTotal: 0,
  reason: "exited",
  reaped: 0,
  durationMs: 1,
});

const issuesOf = (fn: () => unknown): { path: string; message: string }[] => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return [...e.issues];
    throw e;
  }
  throw new Error("no ConfigError");
};

const SEAT = { boards: ["b"], assignee: "lane-1", agent: { kind: "command", command: ["x"] } };

describe("error chains", () => {
  it("say each cause once: a wrapper that quotes its cause, or rethrows its message, adds nothing", () => {
    const root = new Error("spawn /nope/hermes ENOENT");
    const mid = new Error(`hermes command unavailable: '/nope/hermes' cannot be started (ENOENT) — ${root.message}`, { cause: root });
    const top = new ExitError(1, `the bridge stopped: ${mid.message}`, { cause: mid });
    const again = new ExitError(2, top.message, { cause: top });
    const text = describeError(again);
    expect(text).toBe(top.message);
    expect(text.split(root.message).length - 1).toBe(1);
  });

  it("keep a cause that says something new, and stop at a cycle", () => {
    const a = new Error("could not read the task");
    const b = new Error("database is locked", { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(describeError(new Error("close failed", { cause: b }))).toBe("close failed — caused by: database is locked — caused by: could not read the task");
  });
});

describe("a missing hermes program", () => {
  it("is named as missing, not as arguments the CLI rejected", () => {
    const py = classify(exited(2, "/usr/bin/python3: can't open file '/opt/hermes/hermes': [Errno 2] No such file or directory\n"), {
      verb: "list",
      board: "b",
    });
    expect(py).toBeInstanceOf(CliUnavailable);
    expect(py?.message).toContain("the hermes program /opt/hermes/hermes does not exist");
    expect(py?.message).not.toContain("rejected the arguments");
    const sh = classify(exited(127, "bash: line 1: hermes: command not found\n", ["ssh", "board-host", "hermes"]), { verb: "list", board: "b" });
    expect(sh).toBeInstanceOf(CliUnavailable);
    expect(sh?.message).toContain("the hermes program 'hermes' was not found (exit 127)");
    // a real usage error stays one
    expect(
      classify(exited(2, "usage: hermes kanban list [-h]\nhermes kanban list: error: unrecognized arguments: --bogus\n"), { verb: "list", board: "b" }),
    ).toBeInstanceOf(UsageError);
  });
});

describe("configuration messages", () => {
  it('a missing required key "is required", with the flag and variable that set it', () => {
    const issues = issuesOf(() => loadConfig({ env: {}, base: {} }));
    expect(issues).toContainEqual({ path: "boards", message: "is required (in the config file, or --board / HERMES_BRIDGE_BOARD)" });
    expect(issues).toContainEqual({ path: "assignee", message: "is required (in the config file, or --assignee / HERMES_BRIDGE_ASSIGNEE)" });
    expect(issues.map((i) => i.path)).toContain("agent");
    const local = issuesOf(() => loadConfig({ env: {}, base: { ...SEAT, agent: { kind: "local-llm", baseUrl: "http://127.0.0.1:1/v1" } } }));
    expect(local).toContainEqual({ path: "agent.model", message: "is required" });
    for (const i of [...issues, ...local]) expect(i.message).not.toMatch(/received undefined/);
  });

  it("unknown HERMES_BRIDGE_* variables are warned about with a did-you-mean, nested keys too", () => {
    const env = {
      HERMES_BRIDGE_BORAD: "x",
      HERMES_BRIDGE_HTTP_PORTT: "9464",
      HERMES_BRIDGE_CLAIM_TTL_SECONDS: "300",
      HERMES_BRIDGE_AGENT_MODEL: "gpt-5",
      HERMES_BRIDGE_SEAT_ON_LIMTI: "wait",
      HERMES_BRIDGE_QQQQQQQQQQ: "1",
      // what the bridge sets for its agents, and the flags' own variables: no warning
      HERMES_BRIDGE_TASK_ID: "t_1",
      HERMES_BRIDGE_ASSIGNEE: "lane-1",
    };
    const w = loadConfig({ env, base: SEAT }).provenance?.warnings ?? [];
    expect(w).toHaveLength(6);
    expect(w).toContain("HERMES_BRIDGE_BORAD is not a setting the bridge reads — did you mean HERMES_BRIDGE_BOARD?");
    expect(w).toContain("HERMES_BRIDGE_HTTP_PORTT is not a setting the bridge reads — did you mean HERMES_BRIDGE_HTTP_PORT?");
    expect(w).toContain("HERMES_BRIDGE_CLAIM_TTL_SECONDS is not a setting the bridge reads — claim.ttlSeconds is set by HERMES_BRIDGE_TTL (or --ttl)");
    expect(w).toContain(
      "HERMES_BRIDGE_AGENT_MODEL is not a setting the bridge reads — did you mean the config key agent.model? It has no variable: set it in the config file",
    );
    expect(w.find((x) => x.startsWith("HERMES_BRIDGE_SEAT_ON_LIMTI"))).toContain("the config key seat.onLimit");
    expect(w.find((x) => x.startsWith("HERMES_BRIDGE_QQQQQQQQQQ"))).toContain("see --help");
    expect(loadOpsConfig({ env: { HERMES_BRIDGE_STATE_DIRR: "/x" }, base: {} }).provenance?.warnings).toEqual([
      "HERMES_BRIDGE_STATE_DIRR is not a setting the bridge reads — did you mean HERMES_BRIDGE_STATE_DIR?",
    ]);
  });

  it("every HERMES_BRIDGE_* name the bridge spells is a flag's variable or one it sets for agents (none is warned about)", () => {
    const known = new Set([...FLAGS.map((f) => envNameFor(f.name)), ...AGENT_PROTOCOL_VARS]);
    const files = readdirSync("src", { recursive: true, encoding: "utf8" }).filter(
      (f) => f.endsWith(".ts") && !f.startsWith("emulator") && f !== join("config", "env-check.ts"),
    );
    const spelled = new Set(files.flatMap((f) => readFileSync(join("src", f), "utf8").match(/HERMES_BRIDGE_[A-Z][A-Z_]*[A-Z]/g) ?? []));
    expect(spelled.size).toBeGreaterThan(8);
    expect([...spelled].filter((n) => !known.has(n))).toEqual([]);
  });

  it("the commands that read a seat's state need no board", () => {
    const c = loadOpsConfig({ env: {}, flags: { "state-dir": "/srv/seats/a" } }, { seat: true });
    expect(c.boards).toEqual([]);
    expect(c.stateDir).toBe("/srv/seats/a");
  });
});

describe("a run's log decision", () => {
  it("names what the close did: a usage-limit hand-back or park is no block", () => {
    expect(outcomeOf({ decision: "block", close: "applied", handedOff: "handoff" }).decision).toBe("handed_back");
    expect(outcomeOf({ decision: "block", close: "applied", handedOff: "wait" }).decision).toBe("parked");
    expect(outcomeOf({ decision: "block", close: "applied", handedOff: undefined }).decision).toBe("block");
    expect(outcomeOf({ decision: "complete", close: "lease_lost", handedOff: undefined }).decision).toBe("lease_lost");
    expect(outcomeOf({ decision: "complete", close: "applied", handedOff: undefined })).toEqual({ decision: "complete", words: "completed" });
  });
});
