// A CLI agent's config home, made fresh for every run (`<run dir>/cli-home`): whatever one task writes
// there — settings and hooks, memory files, MCP servers, plugins, its transcripts — never reaches another.
// In go, before the run: the operator's template (`agent.cliHome`: settings, plugins, instructions — never
// anything a run wrote), the seat's login (its credential files only, each cut to the keys a login has,
// read from the seat's login dir, which no run ever sees), and — for a run that continues a cut one of
// the same task — that task's saved transcript. Out, after the run: a token the CLI refreshed goes back
// to the seat's login (that file only, checked), and the transcript of the run's session is saved for the
// task's next run. Everything read from a run's home goes through the workspace boundary (the agent could
// write it: a link or a FIFO there is refused, never followed).
import { cp, lstat, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describeError } from "../errors/index.js";
import { readBytesInside, readTextInside, SandboxRefused } from "../agent-files/files.js";
import { walkFiles } from "../agent-files/tree.js";
import { replaceWith, writeStateFile } from "../state/atomic.js";
import { systemClock } from "../time/clock.js";

/** One credential file of a CLI's home. */
export interface CredentialFile {
  /** Its path in the home. */
  path: string;
  /** The part of its parsed JSON a run may carry (known keys only), or null when it is no login. */
  pick(json: unknown): Record<string, unknown> | null;
  /** A run's version may replace the login's (the same account, a later expiry); absent: never written back. */
  accepts?(login: Record<string, unknown> | null, run: Record<string, unknown>, now: number): boolean;
}

/** What a CLI kind keeps in its config home, by role. */
export interface CliHomeLayout {
  /** The variable that names the home (CLAUDE_CONFIG_DIR, CODEX_HOME). */
  env: string;
  credentials: readonly CredentialFile[];
  /** Whether a file of a home (its path relative to the home) belongs to session `id`'s transcript. */
  isTranscript(rel: string, id: string): boolean;
}

/** The run dir's folder that is the CLI's home for this run. */
export const RUN_CLI_HOME = "cli-home";
/** The task's session dir's folder that keeps the transcript its next run resumes. */
export const SAVED_TRANSCRIPT = "transcript";

const CRED_MAX = 256 * 1024;
const TRANSCRIPT_MAX = 64 * 1024 * 1024;

async function readJson(root: string, rel: string): Promise<unknown | undefined> {
  try {
    return JSON.parse(await readTextInside(root, rel, { maxBytes: CRED_MAX }));
  } catch (err) {
    if (err instanceof SandboxRefused && err.why === "does not exist") return undefined;
    return null; // there, but not a readable JSON file
  }
}

const isDir = async (p: string) => (await lstat(p).catch(() => null))?.isDirectory() === true;

/** Copies a tree of regular files and directories (links and special files left out). */
async function copyTree(from: string, to: string): Promise<void> {
  await cp(from, to, {
    recursive: true,
    force: true,
    errorOnExist: false,
    filter: async (src) => {
      const st = await lstat(src).catch(() => null);
      return st !== null && (st.isDirectory() || st.isFile());
    },
  });
}

/** Makes the run's fresh home: the template, the login's credentials, the task's saved transcript (a resumed run). */
export async function freshHome(o: {
  layout: CliHomeLayout;
  login: string;
  template?: string | undefined;
  home: string;
  restore?: string | undefined;
}): Promise<void> {
  await mkdir(o.home, { recursive: true, mode: 0o700 });
  if (o.template && (await isDir(o.template))) await copyTree(o.template, o.home);
  for (const c of o.layout.credentials) {
    const json = await readJson(o.login, c.path);
    const kept = json === undefined || json === null ? null : c.pick(json);
    if (!kept) continue;
    await mkdir(dirname(join(o.home, c.path)), { recursive: true, mode: 0o700 });
    await writeFile(join(o.home, c.path), `${JSON.stringify(kept, null, 2)}\n`, { mode: 0o600 });
  }
  if (o.restore && (await isDir(o.restore))) await copyTree(o.restore, o.home);
}

/**
 * Credentials the CLI refreshed during the run, written back to the login; the paths written. A run's home
 * is the agent's to write, so a candidate is only a claim: it must pass its file's own check (the same
 * account, a later expiry) and then work — `verify` runs the kind's one trivial request with it, from a
 * login of the bridge's own made for the purpose, outside the jail. The login it replaces is kept as
 * `<file>.prev`.
 */
export async function refreshLogin(o: {
  layout: CliHomeLayout;
  login: string;
  home: string;
  verify?: ((login: string) => Promise<boolean>) | undefined;
  now?: number | undefined;
}): Promise<string[]> {
  const candidates: { path: string; kept: Record<string, unknown>; was: Record<string, unknown> | null }[] = [];
  for (const c of o.layout.credentials) {
    if (!c.accepts) continue;
    const run = await readJson(o.home, c.path);
    const kept = run === undefined || run === null ? null : c.pick(run);
    if (!kept) continue;
    const was = await readJson(o.login, c.path);
    const login = was === undefined || was === null ? null : c.pick(was);
    if (JSON.stringify(login) === JSON.stringify(kept) || !c.accepts(login, kept, o.now ?? systemClock.now())) continue;
    candidates.push({ path: c.path, kept, was: login });
  }
  if (candidates.length === 0) return [];
  if (o.verify) {
    const trial = await mkdtemp(`${o.login}.candidate-`);
    try {
      await freshHome({ layout: o.layout, login: o.login, home: trial });
      for (const c of candidates) await writeFile(join(trial, c.path), `${JSON.stringify(c.kept, null, 2)}\n`, { mode: 0o600 });
      if (!(await o.verify(trial))) throw new Error("the login the run left did not work with one request of the bridge's own: the seat keeps its own");
    } finally {
      await rm(trial, { recursive: true, force: true }).catch(() => undefined);
    }
  }
  await mkdir(o.login, { recursive: true, mode: 0o700 });
  for (const c of candidates) {
    if (c.was) writeStateFile(join(o.login, `${c.path}.prev`), `${JSON.stringify(c.was, null, 2)}\n`, { mode: 0o600 });
    writeStateFile(join(o.login, c.path), `${JSON.stringify(c.kept, null, 2)}\n`, { mode: 0o600 });
  }
  return candidates.map((c) => c.path);
}

/** Saves the transcript of `sessions` from a run's home into `save` (replacing an earlier one); the files saved. */
export async function saveTranscript(o: { layout: CliHomeLayout; home: string; sessions: readonly string[]; save: string }): Promise<number> {
  if (o.sessions.length === 0 || !(await isDir(o.home))) return 0;
  const files: string[] = [];
  walkFiles(o.home, (rel) => {
    if (o.sessions.some((id) => o.layout.isTranscript(rel, id))) files.push(rel);
    return undefined;
  });
  if (files.length === 0) return 0;
  await replaceWith(
    o.save,
    async (next) => {
      for (const rel of files) {
        const bytes = await readBytesInside(o.home, rel, { maxBytes: TRANSCRIPT_MAX });
        await mkdir(dirname(join(next, rel)), { recursive: true, mode: 0o700 });
        await writeFile(join(next, rel), bytes, { mode: 0o600 });
      }
    },
    { folder: true },
  );
  return files.length;
}

/** After a run: the refreshed login and the saved transcript; a failure is reported, never thrown (the run's outcome stands). */
export async function closeHome(o: {
  layout: CliHomeLayout;
  login: string;
  home: string;
  sessions: readonly string[];
  save: string;
  verify?: ((login: string) => Promise<boolean>) | undefined;
}): Promise<{ refreshed: string[]; saved: number; problem: string | null }> {
  let refreshed: string[] = [];
  let saved = 0;
  const problems: string[] = [];
  try {
    refreshed = await refreshLogin(o);
  } catch (err) {
    problems.push(`the refreshed login was not kept: ${describeError(err)}`);
  }
  try {
    saved = await saveTranscript(o);
  } catch (err) {
    problems.push(`the session's transcript was not saved: ${describeError(err)}`);
  }
  return { refreshed, saved, problem: problems.length ? problems.join("; ") : null };
}
