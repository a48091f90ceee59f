// The emulator's command dispatcher: `kanban [--board <slug>] <verb> …` with the real CLI's
// argv grammar, texts and exit codes. A test double and the demo's board, never a product path.
import { mkdirSync } from "node:fs";
import { ArgError, type ParserSpec, help, parseArgs, usage } from "./argparse.js";
import { HELP, usageBlock } from "./help-text.js";
import { EmuExit, legacyExitCodes, namedClaims } from "./io.js";
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
import { show } from "./verbs/show.js";
import { archive, create, listVerb } from "./verbs/tasks.js";
import type { Verb } from "./verbs/types.js";
import { NAMED_CLAIMS_HELP, namedClaimsTable } from "./verbs/named-claims.js";
import { watchVerb } from "./verbs/watch.js";

export const TOP_USAGE = `${usageBlock("top")}\n`;

/** The verbs of Hermes 0.20.0's `kanban` parser (the emulator implements the ones a bridge and its tests use). */
const VERB_NAMES = [
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
export const VERSION_TEXT = "Hermes Agent v0.20.0 (2026.8.3)\nInstall directory: (hermes-kanban-emulator)\nPython: (none, emulated)\n";
const KANBAN_USAGE = `${usageBlock("kanban")}\n`;
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
]);

export interface MainResult {
  code: number;
  stdout: string;
  stderr: string;
}

function verbs(env: NodeJS.ProcessEnv, dieAfter: number | null): Record<string, Verb> {
  return namedClaimsTable(baseVerbs(env, dieAfter), env);
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
    if (argv[0] === "--version" || argv[0] === "version") return { code: 0, stdout: VERSION_TEXT, stderr: "" };
    if (argv[0] !== "kanban") throw new EmuExit(2, "", `${TOP_USAGE}hermes: error: the emulator only implements \`hermes kanban\`\n`);
    const rest = argv.slice(1);
    let boardArg: string | null = null;
    let i = 0;
    for (; i < rest.length; i += 1) {
      const t = rest[i] ?? "";
      if (t === "--board") boardArg = rest[++i] ?? null;
      else if (t.startsWith("--board=")) boardArg = t.slice("--board=".length);
      else if (t === "-h" || t === "--help") return { code: 0, stdout: HELP.kanban ?? KANBAN_USAGE, stderr: "" };
      else break;
    }
    const verbName = rest[i];
    const args = rest.slice(i + 1);
    if (verbName === undefined) return { code: 0, stdout: HELP.kanban ?? KANBAN_USAGE, stderr: "" };
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
    if (!verb && VERB_NAMES.includes(verbName))
      throw new EmuExit(2, "", `hermes kanban: error: the emulator does not implement '${verbName}' (a real Hermes 0.20.0 verb)\n`);
    if (!verb)
      throw new EmuExit(
        2,
        "",
        `${KANBAN_USAGE}hermes kanban: error: argument kanban_action: invalid choice: '${verbName}' (choose from ${VERB_NAMES.map((v) => `'${v}'`).join(", ")})\n`,
      );
    const parsed = parseVerbArgs(verb.spec, args);
    // The recorded help is 0.20.0's; a compat switch with other options prints help from the spec.
    const ownHelp = legacyExitCodes(env) || (namedClaims(env) && NAMED_CLAIMS_HELP.has(verbName));
    if (parsed.help) return { code: 0, stdout: (ownHelp ? undefined : HELP[verbName]) ?? help(verb.spec), stderr: "" };
    if (parsed.extras.length > 0) throw new EmuExit(2, "", `${TOP_USAGE}hermes: error: unrecognized arguments: ${parsed.extras.join(" ")}\n`);
    if (fault?.mode === "transient") throw new EmuExit(1, "", "kanban: database is locked\n");
    if (fault?.mode === "exit0err") throw new EmuExit(0, "", "kanban: database is locked\n");
    if (fault?.mode === "usage") throw new EmuExit(2, "", `${TOP_USAGE}hermes: error: unrecognized arguments (HERMES_EMULATOR_FAULTS ${verbName}:usage)\n`);
    const inServer = env.HERMES_EMULATOR_CALL_PID !== undefined;
    if (fault?.mode === "server-hang" && inServer) for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
    if (fault?.mode === "hang" || fault?.mode === "server-hang") for (;;) await new Promise((r) => setTimeout(r, 60_000));
    if (env.HERMES_DELEGATED_CHILD_CONTEXT) {
      if (MUTATING.has(verbName)) throw new EmuExit(1, "", "kanban: delegate_task child contexts cannot mutate Kanban tasks via the CLI\n");
      throw new EmuExit(1, "", "kanban: could not initialize database: delegate_task child contexts cannot mutate Kanban tasks or boards\n");
    }
    const loc = resolveBoard(env, boardArg);
    const db = openDb(loc, env);
    try {
      await verb.run(
        {
          env,
          loc,
          db,
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
      db.close();
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

function parseVerbArgs(spec: ParserSpec, args: string[]) {
  try {
    return parseArgs(spec, args);
  } catch (err) {
    if (err instanceof ArgError)
      throw new EmuExit(2, "", `${usageBlock(spec.prog.replace(/^hermes kanban /, "")) ?? usage(spec)}\n${spec.prog}: error: ${err.message}\n`);
    throw err;
  }
}
