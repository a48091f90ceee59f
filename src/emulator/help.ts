// The recorded help of the line the emulator plays: 0.20.0's (help-text.ts) or, in the 0.21 mode,
// 0.21.3's (help-text-021.ts). Both recorded by scripts/record-hermes-help.mjs.
import { HELP_021 } from "./help-text-021.js";
import { HELP } from "./help-text.js";
import { v021 } from "./io.js";

export function helpTexts(env: NodeJS.ProcessEnv): Record<string, string> {
  return v021(env) ? HELP_021 : HELP;
}

/** The usage block of a parser's help (what argparse prints above "<prog>: error: …"). */
export function usageBlock(key: string, env: NodeJS.ProcessEnv): string | undefined {
  const h = helpTexts(env)[key];
  return h === undefined ? undefined : h.slice(0, h.indexOf("\n\n") === -1 ? h.length : h.indexOf("\n\n"));
}
