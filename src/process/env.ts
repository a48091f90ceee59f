// The one environment filter: a child process gets the names it is allowed (from the parent), never a
// name the `never` rule matches, then what is set on purpose (also never a `never` name). The rules
// that matter are named here once.

/** The variables that steer which Hermes board, run or profile a process acts for (hermes-cli-contract §1.6). */
export const HERMES_ROUTING = /^HERMES_(KANBAN_|DELEGATED_CHILD_CONTEXT$|PROFILE_NAME$)/;
/** An agent sees none of Hermes's own variables: not its home, the routing, the profile. */
export const HERMES_ANY_CONTROL = /^HERMES_(HOME$|KANBAN_|PROFILE|DELEGATED)/;
/** The bridge's own tools (an upload command) see nothing of the bridge's Hermes settings. */
export const HERMES_ALL = /^HERMES_/;

export function pickEnv(
  parent: NodeJS.ProcessEnv,
  names: Iterable<string>,
  o: { never: RegExp; set?: Readonly<Record<string, string>> | undefined },
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of names) {
    const v = parent[k];
    if (v !== undefined && !o.never.test(k)) env[k] = v;
  }
  for (const [k, v] of Object.entries(o.set ?? {})) if (!o.never.test(k)) env[k] = v;
  return env;
}
