// "The board is on another host" for tests (HERMES_EMULATOR_WORKSPACE_PREFIX=/remote-x): every path
// the CLI prints (claim, JSON workspace_path, context, attachments) gets the prefix, as paths of a host
// whose files this one does not see at the same place; a path handed to the CLI with the prefix
// (attach, artifacts) is read without it — the board host's own view. The real files stay where they
// are, so a test can mount them back with workspace.pathMap.

export function shownPath(env: NodeJS.ProcessEnv, p: string): string {
  const prefix = env.HERMES_EMULATOR_WORKSPACE_PREFIX;
  return prefix && p.startsWith("/") ? `${prefix.replace(/\/+$/, "")}${p}` : p;
}

export function boardHostPath(env: NodeJS.ProcessEnv, p: string): string {
  const prefix = env.HERMES_EMULATOR_WORKSPACE_PREFIX?.replace(/\/+$/, "");
  return prefix && p.startsWith(`${prefix}/`) ? p.slice(prefix.length) : p;
}
