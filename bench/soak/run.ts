// The chaos soak: one emulator board, several bridge daemons (real processes) racing on N tasks,
// with seeded faults — transient/hanging/v0.14-style CLI failures, misbehaving agents, gateway
// reclaims, time jumps that expire claims, a webhook that goes down, daemons SIGKILLed and
// restarted, an operator unblocking runs cut at their deadline (the next run of the same seat resumes
// the agent's session) — then an audit of the board and the outboxes. Reproduce a run with its seed.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { main as emulatorMain } from "../../src/emulator/main.js";
import { Outbox, type OutboxEntry } from "../../src/outbox/outbox.js";
import { type RunResult, runProcess } from "../../src/process/runner.js";
import { WebhookServer } from "../../test/helpers/webhook.js";
import { type Audit, HARNESS_DB, audit, failures, history } from "./checks.js";

type CallServerMode = "auto" | "on" | "off";

export interface SoakOptions {
  seed: number;
  tasks: number;
  daemons: number;
  timeoutMs: number;
  keep?: boolean;
  log?: (s: string) => void;
  /** HERMES_EMULATOR_COMPAT for the board (e.g. "named-claims": named claims, renewal, guards, gave_up). */
  compat?: string;
  /** hermes.callServer of every seat (default auto), or one per seat in turn (a mixed fleet: e.g. ["on", "off"]). */
  callServer?: CallServerMode | CallServerMode[];
}

export interface SoakResult {
  seed: number;
  audit: Audit;
  failures: string[];
  chaos: Record<string, number>;
  outbox: Record<string, number>;
  durationMs: number;
  sample: { task: string; history: string[] }[];
}

const modeOf = (m: SoakOptions["callServer"], seat: number): CallServerMode => (Array.isArray(m) ? (m[seat % m.length] ?? "auto") : (m ?? "auto"));

/** mulberry32: small, seedable, good enough to draw a reproducible mix. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MIX: [string, number][] = [
  ["complete", 0.34],
  ["polite", 0.08],
  ["block", 0.12],
  ["crash", 0.1],
  ["silent", 0.08],
  ["notok", 0.06],
  ["secret", 0.1],
  ["hang", 0.06],
  ["flood", 0.06],
];

function pick(r: () => number): string {
  let x = r();
  for (const [m, w] of MIX) {
    if (x < w) return m;
    x -= w;
  }
  return "complete";
}

const ROOT = resolve(".");
const EMU = join(ROOT, "dist", "emulator", "bin.js");
const CLI = join(ROOT, "dist", "cli", "main.js");
const AGENT = join(ROOT, "test", "fixtures", "agents", "agent.mjs");
const SECRET = "planted-soak-secret-4c1d9e";

/** Blocked tasks whose last block is a deadline cut naming a session to continue. */
function cutWithSession(db: Database.Database): string[] {
  const rows = db
    .prepare(
      "SELECT t.id AS id, (SELECT payload FROM task_events e WHERE e.task_id = t.id AND e.kind = 'blocked' ORDER BY e.id DESC LIMIT 1) AS payload FROM tasks t WHERE t.status = 'blocked'",
    )
    .all() as { id: string; payload: string | null }[];
  return rows
    .filter((r) => /did not finish before its deadline[\s\S]*^session: /m.test(r.payload ? String(JSON.parse(r.payload).reason ?? "") : ""))
    .map((r) => r.id);
}

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const started = performance.now();
  const log = o.log ?? (() => undefined);
  const r = prng(o.seed);
  const dir = mkdtempSync(join(tmpdir(), "hkb-soak-"));
  chmodSync(dir, 0o711); // passable: a bridge running as root runs its agents as another uid
  const home = join(dir, "hermes");
  const env = { PATH: process.env.PATH ?? "", HERMES_HOME: home, ...(o.compat ? { HERMES_EMULATOR_COMPAT: o.compat } : {}) };
  // The operator's own calls (create, dispatch, unblock) run the emulator's main() here: no Node start each.
  const emu = (args: string[]) => emulatorMain(["kanban", ...args], env);
  await emu(["boards", "create", "soak"]);
  const hook = await WebhookServer.start();
  const chaos: Record<string, number> = { kills: 0, webhookDown: 0, timeJumps: 0, dispatches: 0, unblocks: 0 };
  const unblocked = new Map<string, number>();
  const daemons: { cfg: string; state: string; proc: Promise<RunResult> | null; pid: number }[] = [];
  try {
    for (let i = 0; i < o.tasks; i += 1) {
      const mode = pick(r);
      await emu(["--board=soak", "create", `--assignee=soak-lane`, `--body=soak task ${i} MODE:${mode}`, "--json", "--", `soak ${i} (${mode})`]);
    }
    for (let i = 0; i < o.daemons; i += 1) {
      const state = join(dir, `state-${i}`);
      mkdirSync(state, { recursive: true });
      const cfg = join(dir, `seat-${i}.yaml`);
      writeFileSync(
        cfg,
        [
          "boards: [soak]",
          "assignee: soak-lane",
          `hermes: {command: ["${process.execPath}", "${EMU}"], home: "${home}", callTimeoutSeconds: 4, callServer: ${modeOf(o.callServer, i)}, env: {HERMES_EMULATOR_FAULTS: "*:transient@0.2,*:exit0err@0.03,*:hang@0.005"${o.compat ? `, HERMES_EMULATOR_COMPAT: "${o.compat}"` : ""}}, retry: {retries: 4, minDelayMs: 100, maxDelayMs: 1000, deadlineSeconds: 30}}`,
          `agent: {kind: command, command: ["${process.execPath}", "${AGENT}"], passEnv: [FIXTURE_SECRET], killGraceSeconds: 1}`,
          "claim: {ttlSeconds: 30, safetySeconds: 20}",
          "heartbeat: {intervalSeconds: 2}",
          "concurrency: 2",
          "discovery: {sweepSeconds: 2, debounceMs: 50, watchRestartMaxSeconds: 2}",
          `stateDir: "${state}"`,
          `webhook: {url: "${hook.url}", retries: 1, timeoutSeconds: 2}`,
          "secrets: {env: [FIXTURE_SECRET]}",
          "shutdown: {graceSeconds: 2}",
          "log: {level: warn, format: json}",
        ].join("\n"),
      );
      daemons.push({ cfg, state, proc: null, pid: 0 });
    }
    const start = (d: (typeof daemons)[number]) => {
      d.proc = runProcess({
        argv: [process.execPath, CLI, "run", "--config", d.cfg],
        env: { ...env, HOME: dir, FIXTURE_SECRET: SECRET },
        cleanup: true,
        outputFiles: { stdout: join(d.state, "daemon.log"), stderr: join(d.state, "daemon.err"), maxBytes: 8 << 20 },
        onSpawn: (pid) => {
          d.pid = pid;
        },
      });
    };
    for (const d of daemons) start(d);
    const deadline = performance.now() + o.timeoutMs;
    const db = new Database(join(home, "kanban", "boards", "soak", "kanban.db"), HARNESS_DB);
    let quietChecks = 0;
    let tick = 0;
    while (performance.now() < deadline) {
      await new Promise((res) => setTimeout(res, 500));
      tick += 1;
      const x = r();
      if (x < 0.04) {
        const d = daemons[Math.floor(r() * daemons.length)];
        if (d?.pid) {
          process.kill(d.pid, "SIGKILL");
          chaos.kills = (chaos.kills ?? 0) + 1;
          await d.proc;
          await new Promise((res) => setTimeout(res, 200 + r() * 800));
          start(d);
        }
      } else if (x < 0.07) {
        hook.failing = !hook.failing;
        if (hook.failing) chaos.webhookDown = (chaos.webhookDown ?? 0) + 1;
      } else if (x < 0.085) {
        // The board's clock jumps past every claim's TTL: the gateway reclaims them all.
        writeFileSync(join(home, ".emulator-clock-offset"), "3600");
        await emu(["--board=soak", "dispatch", "--json"]);
        writeFileSync(join(home, ".emulator-clock-offset"), "0");
        chaos.timeJumps = (chaos.timeJumps ?? 0) + 1;
      }
      if (tick % 4 === 0) {
        await emu(["--board=soak", "dispatch", "--json"]);
        chaos.dispatches = (chaos.dispatches ?? 0) + 1;
      }
      if (tick % 4 === 2) {
        // The operator: a run cut at its deadline that names a session to continue is unblocked (twice at most).
        for (const id of cutWithSession(db)) {
          if ((unblocked.get(id) ?? 0) >= 2) continue;
          unblocked.set(id, (unblocked.get(id) ?? 0) + 1);
          await emu(["--board=soak", "unblock", "--", id]);
          chaos.unblocks = (chaos.unblocks ?? 0) + 1;
        }
      }
      const open = (db.prepare("SELECT COUNT(*) AS n FROM tasks WHERE status NOT IN ('done','blocked','triage')").get() as { n: number }).n;
      if (tick % 10 === 0) log(`  t=${Math.round((performance.now() - started) / 1000)}s open=${open} chaos=${JSON.stringify(chaos)}`);
      quietChecks = open === 0 ? quietChecks + 1 : 0;
      if (quietChecks >= 3) break;
    }
    db.close();
    hook.failing = false;
    for (const d of daemons) if (d.pid) process.kill(d.pid, "SIGTERM");
    await Promise.all(daemons.map((d) => d.proc));
    const entries: OutboxEntry[] = daemons.flatMap((d) => new Outbox(d.state).entries());
    const outbox: Record<string, number> = {};
    for (const e of entries) outbox[e.state] = (outbox[e.state] ?? 0) + 1;
    const dbPath = join(home, "kanban", "boards", "soak", "kanban.db");
    const a = audit(dbPath, [SECRET, "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "hunter2hunter2"], entries);
    const f = failures(a);
    const problem = [...a.neverClosed, ...a.closedWithoutLease].map((s) => s.split(":")[0] ?? "");
    const sampleIds = problem.length
      ? problem.slice(0, 3)
      : (
          new Database(dbPath, HARNESS_DB).prepare("SELECT task_id FROM task_runs GROUP BY task_id ORDER BY COUNT(*) DESC LIMIT 2").all() as {
            task_id: string;
          }[]
        ).map((x) => x.task_id);
    const sample = sampleIds.map((t) => ({ task: t, history: history(dbPath, t) }));
    return { seed: o.seed, audit: a, failures: f, chaos, outbox, durationMs: Math.round(performance.now() - started), sample };
  } finally {
    for (const d of daemons)
      if (d.pid)
        try {
          process.kill(d.pid, "SIGKILL");
        } catch {
          // already gone
        }
    await hook.close();
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  }
}
