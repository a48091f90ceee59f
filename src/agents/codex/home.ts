// What Codex keeps in its config home (CODEX_HOME), by role (agents/cli-home.ts): the login is `auth.json`
// (an API key, or the ChatGPT tokens a seat refreshes — never another account's); `config.toml`,
// `AGENTS.md` and the rest are configuration a run must never carry to the next (the operator's template
// gives them); a thread's transcript is `sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`.
import { z } from "zod";
import type { CliHomeLayout } from "../cli-home.js";

const tokens = z.looseObject({
  id_token: z.string().max(16384).optional(),
  access_token: z.string().max(16384).optional(),
  refresh_token: z.string().max(16384).optional(),
  account_id: z.string().max(200).nullable().optional(),
});
const auth = z.looseObject({
  OPENAI_API_KEY: z.string().max(1000).nullable().optional(),
  tokens: tokens.nullable().optional(),
  last_refresh: z.string().max(100).nullable().optional(),
  auth_mode: z.string().max(50).nullable().optional(),
});

const accountOf = (x: Record<string, unknown> | null) => {
  const t = x?.tokens;
  return typeof t === "object" && t !== null ? (t as Record<string, unknown>).account_id : undefined;
};
const refreshedAt = (x: Record<string, unknown> | null) => {
  const v = x?.last_refresh;
  return typeof v === "string" ? Date.parse(v) || 0 : 0;
};

export const CODEX_HOME: CliHomeLayout = {
  env: "CODEX_HOME",
  credentials: [
    {
      path: "auth.json",
      pick: (json) => {
        const r = auth.safeParse(json);
        if (!r.success) return null;
        const { OPENAI_API_KEY, tokens: t, last_refresh, auth_mode } = r.data;
        const kept: Record<string, unknown> = {};
        if (OPENAI_API_KEY !== undefined) kept.OPENAI_API_KEY = OPENAI_API_KEY;
        if (t) kept.tokens = { id_token: t.id_token, access_token: t.access_token, refresh_token: t.refresh_token, account_id: t.account_id };
        if (last_refresh !== undefined) kept.last_refresh = last_refresh;
        if (auth_mode !== undefined) kept.auth_mode = auth_mode;
        return Object.keys(kept).length ? kept : null;
      },
      // Only a refresh of the same ChatGPT account, later than the login's: never an API key swapped in, never another account.
      accepts: (login, run) =>
        login !== null &&
        accountOf(login) !== undefined &&
        accountOf(run) === accountOf(login) &&
        login.OPENAI_API_KEY === run.OPENAI_API_KEY &&
        refreshedAt(run) > refreshedAt(login),
    },
  ],
  isTranscript: (rel, id) => /^sessions\//.test(rel) && rel.endsWith(`-${id}.jsonl`),
};
