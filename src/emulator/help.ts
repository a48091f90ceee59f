// The recorded help of the line the emulator plays: 0.20.0's (help-text.ts) or, in the 0.21 mode,
// 0.21.3's (help-text-021.ts). Both recorded by scripts/record-hermes-help.mjs. The 0.21.5 mode has no
// recording: its `kanban --help` is 0.21.3's with the one verb 0.21.4 adds (`authorize-existing-pr`,
// after `reassign` as in hermes_cli/kanban.py `_HANDLERS`, commit 00030df1…); the words of its help line
// are the emulator's (the parser's own text was not in the source read). Its new verbs print help from
// their specs.
import { HELP_021 } from "./help-text-021.js";
import { HELP } from "./help-text.js";
import { v021 } from "./io.js";

const AUTHORIZE =
  "    authorize-existing-pr\n                        Authorize one same-PR remediation run past the\n                        active_pr respawn guard (operator-only)\n";

const HELP_0215: Record<string, string> = {
  ...HELP_021,
  kanban: (HELP_021.kanban ?? "").replace(",reassign,", ",reassign,authorize-existing-pr,").replace(/( {4}diagnostics \(diag\))/, `${AUTHORIZE}$1`),
};

export function helpTexts(env: NodeJS.ProcessEnv): Record<string, string> {
  return env.HERMES_EMULATOR_COMPAT === "0.21.5" ? HELP_0215 : v021(env) ? HELP_021 : HELP;
}

/** The usage block of a parser's help (what argparse prints above "<prog>: error: …"). */
export function usageBlock(key: string, env: NodeJS.ProcessEnv): string | undefined {
  const h = helpTexts(env)[key];
  return h === undefined ? undefined : h.slice(0, h.indexOf("\n\n") === -1 ? h.length : h.indexOf("\n\n"));
}
