// The recorded help of the line the emulator plays: 0.20.0's (help-text.ts) or, in the 0.21 mode,
// 0.21.3's (help-text-021.ts). Both recorded by scripts/record-hermes-help.mjs. The 0.21.5 mode has no
// recording: its `kanban --help` is 0.21.3's with the one verb 0.21.4 adds (`authorize-existing-pr`,
// after `reassign` as in hermes_cli/kanban.py `_HANDLERS`, commit 00030df1…); the words of its help line
// are the emulator's (the parser's own text was not in the source read). Its new verbs print help from
// their specs. The 0.21.6 mode's is built from its parser (hermes_cli/kanban_parser.py at NousResearch/
// hermes-agent commit ee272988f7576e9bf87d3e785290508c6ff24b0a, rendered by Python 3.11's argparse at 80
// columns): 0.21.3's list with `reopen` after `unblock` (no `authorize-existing-pr`), and the help of
// `reopen` and `repair` (recorded from the real 0.21.3 CLI, the same text in that parser).
import { HELP_021 } from "./help-text-021.js";
import { HELP_0216_VERBS } from "./help-text-0216.js";
import { HELP } from "./help-text.js";
import { v021 } from "./io.js";

const AUTHORIZE =
  "    authorize-existing-pr\n                        Authorize one same-PR remediation run past the\n                        active_pr respawn guard (operator-only)\n";

/** 0.21.3's recordings and `repair`'s help (recorded from the same CLI later). */
const HELP_021R: Record<string, string> = { ...HELP_021, repair: HELP_0216_VERBS.repair ?? "" };

const HELP_0215: Record<string, string> = {
  ...HELP_021R,
  kanban: (HELP_021.kanban ?? "").replace(",reassign,", ",reassign,authorize-existing-pr,").replace(/( {4}diagnostics \(diag\))/, `${AUTHORIZE}$1`),
};

const REOPEN_LINE = "    reopen              Undo a completion: reopen a done task (done ->\n                        blocked/todo/ready)\n";

const HELP_0216: Record<string, string> = {
  ...HELP_021R,
  ...HELP_0216_VERBS,
  kanban: (HELP_021.kanban ?? "").replaceAll(",unblock,", ",unblock,reopen,").replace(/( {4}request-review {6})/, `${REOPEN_LINE}$1`),
};

export function helpTexts(env: NodeJS.ProcessEnv): Record<string, string> {
  const c = env.HERMES_EMULATOR_COMPAT;
  return c === "0.21.6" ? HELP_0216 : c === "0.21.5" ? HELP_0215 : v021(env) ? HELP_021R : HELP;
}

/** The usage block of a parser's help (what argparse prints above "<prog>: error: …"). */
export function usageBlock(key: string, env: NodeJS.ProcessEnv): string | undefined {
  const h = helpTexts(env)[key];
  return h === undefined ? undefined : h.slice(0, h.indexOf("\n\n") === -1 ? h.length : h.indexOf("\n\n"));
}
