// The emulator's command dispatcher: `kanban [--board <slug>] <verb> …` with the real CLI's
// argv grammar, texts and exit codes. A test double and the demo's board, never a product path.
import { mkdirSync } from "node:fs";
import { ArgError, type ParserSpec, help, parseArgs, usage } from "./argparse.js";
import { helpTexts, usageBlock } from "./help.js";
import { EmuExit, legacyExitCodes, namedClaims, v021 } from "./io.js";
import { parseFaults, pickFault } from "./faults.js";
import { kanbanRoot, nowSeconds, openDb, resolveBoard } from "./store.js";
import { boardsCommand } from "./verbs/boards.js";
import { attach, attachments } from "./verbs/attach.js";
import { block, blockSpec, reclaim, unblock } from "./verbs/close.js";
import { complete } from "./verbs/complete.js";
import { edit } from "./verbs/edit.js";
import { context } from "./verbs/context.js";
import { dispatch } from "./verbs/dispatch.js";
import { claim, comment, heartbeat } from "./verbs/lease.js";
import { reopenReview, requestReview } from "./verbs/review.js";
import { schedule } from "./verbs/schedule.js";
import { setModel } from "./verbs/set-model.js";
import { line021Table } from "./verbs/table-021.js";
import { show } from "./verbs/show.js";
import { archive, create, listVerb } from "./verbs/tasks.js";
import type { Verb } from "./verbs/types.js";
import { NAMED_CLAIMS_HELP, namedClaimsTable } from "./verbs/named-claims.js";
import { line0215Table, v0215 } from "./verbs/line0215.js";
import { watchVerb } from "./verbs/watch.js";
import { line0216Table, v0216 } from "./verbs/line0216.js";
import { corruptGuard } from "./verbs/repair.js";

const topUsage = (env: NodeJS.ProcessEnv) => `${usageBlock("top", env)}\n`;

/** The verbs of Hermes 0.20.0's `kanban` parser (the emulator implements the ones a bridge and its tests use). */
const VERB_NAMES_020 = [
  "init",
  "boards",
  "create",
  "swarm",
  "list",
  "ls",
  "show",
  "assign",
  "set-model",
  "reclaim",
  "reassign",
  "diagnostics",
  "diag",
  "link",
  "unlink",
  "claim",
  "comment",
  "attach",
  "attachments",
  "attach-rm",
  "complete",
  "edit",
  "block",
  "schedule",
  "unblock",
  "request-review",
  "reopen-review",
  "unguard",
  "promote",
  "archive",
  "tail",
  "dispatch",
  "daemon",
  "watch",
  "stats",
  "notify-subscribe",
  "notify-list",
  "notify-unsubscribe",
  "log",
  "runs",
  "heartbeat",
  "assignees",
  "context",
  "specify",
  "decompose",
  "gc",
  "repair",
];
/** 0.21.3's: `request-changes` after `request-review`, no `unguard`. */
const VERB_NAMES_021 = VERB_NAMES_020.flatMap((v) => (v === "unguard" ? [] : v === "request-review" ? [v, "request-changes"] : [v]));
/** 0.21.4+'s: `authorize-existing-pr` after `reassign` (hermes_cli/kanban.py `_HANDLERS`, commit 00030df1…). */
const VERB_NAMES_0215 = VERB_NAMES_021.flatMap((v) => (v === "reassign" ? [v, "authorize-existing-pr"] : [v]));
/** 0.21.6's (hermes_cli/kanban_parser.py at ee272988…): `reopen` after `unblock`; no `authorize-existing-pr`. */
const VERB_NAMES_0216 = VERB_NAMES_021.flatMap((v) => (v === "unblock" ? [v, "reopen"] : [v]));
const verbNames = (env: NodeJS.ProcessEnv) => (v0216(env) ? VERB_NAMES_0216 : v0215(env) ? VERB_NAMES_0215 : v021(env) ? VERB_NAMES_021 : VERB_NAMES_020);
const VERSIONS = {
  "0.20": "Hermes Agent v0.20.0 (2026.8.3)",
  "0.21": "Hermes Agent v0.21.3 (2026.9.14)",
  "0.21.5": "Hermes Agent v0.21.5 (2026.9.24)",
  // As 0.21.6 prints it: the date is 0.21.5's.
  "0.21.6": "Hermes Agent v0.21.6 (2026.9.24) · upstream 818c13be",
};
const versionText = (env: NodeJS.ProcessEnv) =>
  `${VERSIONS[v0216(env) ? "0.21.6" : v0215(env) ? "0.21.5" : v021(env) ? "0.21" : "0.20"]}\nInstall directory: (hermes-kanban-emulator)\nPython: (none, emulated)\n`;
const kanbanUsage = (env: NodeJS.ProcessEnv) => `${usageBlock("kanban", env)}\n`;
const MUTATING = new Set([
  "create",
  "claim",
  "comment",
  "attach",
  "complete",
  "block",
  "schedule",
  "unblock",
  "reclaim",
  "archive",
  "dispatch",
  "heartbeat",
  "request-review",
  "reopen-review",
  "request-changes",
  "set-model",
  "link",
  "authorize-existing-pr",
  "reopen",
  "repair",
]);

export interface MainResult {
  code: number;
  stdout: string;
  stderr: string;
}

function verbs(env: NodeJS.ProcessEnv, dieAfter: number | null): Record<string, Verb> {
  return line0216Table(line0215Table(line021Table(namedClaimsTable(baseVerbs(env, dieAfter), env), env), env), env);
}

function baseVerbs(env: NodeJS.ProcessEnv, dieAfter: number | null): Record<string, Verb> {
  return {
    create,
    list: listVerb,
    ls: listVerb,
    show,
    context,
    claim,
    heartbeat,
    comment,
    attach,
    attachments,
    complete,
    edit,
    block: { ...block, spec: blockSpec(env) },
    unblock,
    "request-review": requestReview,
    "reopen-review": reopenReview,
    "set-model": setModel,
    schedule,
    reclaim,
    archive,
    dispatch,
    watch: watchVerb(dieAfter),
  };
}

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<MainResult> {
  let stdout = "";
  let stderr = "";
  try {
    const HELP = helpTexts(env);
    if (argv[0] === "--version" || argv[0] === "version") return { code: 0, stdout: versionText(env), stderr: "" };
    if (argv[0] !== "kanban") throw new EmuExit(2, "", `${topUsage(env)}hermes: error: the emulator only implements \`hermes kanban\`\n`);
    const rest = argv.slice(1);
    let boardArg: string | null = null;
    let i = 0;
    for (; i < rest.length; i += 1) {
      const t = rest[i] ?? "";
      if (t === "--board") boardArg = rest[++i] ?? null;
      else if (t.startsWith("--board=")) boardArg = t.slice("--board=".length);
      else if (t === "-h" || t === "--help") return { code: 0, stdout: HELP.kanban ?? kanbanUsage(env), stderr: "" };
      else break;
    }
    const verbName = rest[i];
    const args = rest.slice(i + 1);
    if (verbName === undefined) return { code: 0, stdout: HELP.kanban ?? kanbanUsage(env), stderr: "" };
    if (verbName === "boards") {
      const r = boardsCommand(env, args);
      return { code: r.code, stdout: r.out, stderr: r.err };
    }
    if (verbName === "init") return { code: 0, stdout: "", stderr: "" };
    const root = kanbanRoot(env);
    mkdirSync(root, { recursive: true });
    const faults = parseFaults(env.HERMES_EMULATOR_FAULTS);
    // `--help` never opens the database: no fault applies to it (nor is one used up by it).
    const asksHelp = args.includes("-h") || args.includes("--help");
    const fault = asksHelp
      ? null
      : pickFault(
          root,
          faults.filter((f) => f.mode !== "die-after"),
          verbName,
        );
    const dieAfter = faults.find((f) => f.mode === "die-after" && f.verb === verbName)?.arg ?? null;
    const table = verbs(env, dieAfter);
    const verb = table[verbName];
    const names = verbNames(env);
    if (!verb && names.includes(verbName))
      throw new EmuExit(2, "", `hermes kanban: error: the emulator does not implement '${verbName}' (a real Hermes verb)\n`);
    if (!verb || !names.includes(verbName))
      throw new EmuExit(
        2,
        "",
        `${kanbanUsage(env)}hermes kanban: error: argument kanban_action: invalid choice: '${verbName}' (choose from ${names.map((v) => `'${v}'`).join(", ")})\n`,
      );
    const parsed = parseVerbArgs(verb.spec, args, env);
    // The recorded help is 0.20.0's; a compat switch with other options prints help from the spec.
    const ownHelp = legacyExitCodes(env) || (namedClaims(env) && NAMED_CLAIMS_HELP.has(verbName));
    if (parsed.help) return { code: 0, stdout: (ownHelp ? undefined : HELP[verbName]) ?? help(verb.spec), stderr: "" };
    if (parsed.extras.length > 0) throw new EmuExit(2, "", `${topUsage(env)}hermes: error: unrecognized arguments: ${parsed.extras.join(" ")}\n`);
    if (fault?.mode === "transient") throw new EmuExit(1, "", "kanban: database is locked\n");
    if (fault?.mode === "exit0err") throw new EmuExit(0, "", "kanban: database is locked\n");
    if (fault?.mode === "usage") throw new EmuExit(2, "", `${topUsage(env)}hermes: error: unrecognized arguments (HERMES_EMULATOR_FAULTS ${verbName}:usage)\n`);
    const inServer = env.HERMES_EMULATOR_CALL_PID !== undefined;
    if (fault?.mode === "server-hang" && inServer) for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
    if (fault?.mode === "hang" || fault?.mode === "server-hang") for (;;) await new Promise((r) => setTimeout(r, 60_000));
    if (env.HERMES_DELEGATED_CHILD_CONTEXT) {
      if (MUTATING.has(verbName)) throw new EmuExit(1, "", "kanban: delegate_task child contexts cannot mutate Kanban tasks via the CLI\n");
      // 0.21 no longer wraps the fence's refusal in the database-init message.
      throw new EmuExit(
        1,
        "",
        `kanban: ${v021(env) ? "" : "could not initialize database: "}delegate_task child contexts cannot mutate Kanban tasks or boards\n`,
      );
    }
    const loc = resolveBoard(env, boardArg);
    // The connect-time integrity guard (0.21): a corrupt board refuses everything but `repair`, which opens nothing.
    corruptGuard(env, loc, verbName);
    const db = verbName === "repair" ? null : openDb(loc, env);
    try {
      await verb.run(
        {
          env,
          loc,
          db: db as NonNullable<typeof db>,
          now: nowSeconds(root),
          out: (t) => {
            stdout += t;
          },
          err: (t) => {
            stderr += t;
          },
        },
        parsed.values,
      );
    } finally {
      db?.close();
    }
    if (fault?.mode === "kill-server" && inServer) process.exit(70);
    if (fault?.mode === "crash-after" || fault?.mode === "kill-server")
      return { code: 1, stdout: "", stderr: "Traceback (most recent call last):\nsqlite3.OperationalError: disk I/O error (emulator fault: crash-after)\n" };
    return { code: 0, stdout, stderr };
  } catch (err) {
    if (err instanceof EmuExit) return { code: err.code, stdout: stdout + err.stdout, stderr: stderr + err.stderr };
    throw err;
  }
}

function parseVerbArgs(spec: ParserSpec, args: string[], env: NodeJS.ProcessEnv) {
  try {
    return parseArgs(spec, args);
  } catch (err) {
    if (err instanceof ArgError)
      throw new EmuExit(2, "", `${usageBlock(spec.prog.replace(/^hermes kanban /, ""), env) ?? usage(spec)}\n${spec.prog}: error: ${err.message}\n`);
    throw err;
  }
}
