// What Claude Code keeps in its config home (CLAUDE_CONFIG_DIR), by role (agents/cli-home.ts): the login
// is `.credentials.json` (`claudeAiOauth`: the OAuth tokens a subscription seat refreshes) and the account
// keys of `.claude.json` (its other keys — per-project MCP servers, allowed tools, trust — are what a run
// must never carry to the next); a session's transcript is `projects/<cwd slug>/<session id>.jsonl` and
// the folder of the same name beside it (its tool results and subagents).
import { z } from "zod";
import type { CliHomeLayout } from "../cli-home.js";

const oauth = z.looseObject({
  accessToken: z.string().min(1).max(8192),
  refreshToken: z.string().max(8192).optional(),
  expiresAt: z.number().optional(),
  scopes: z.array(z.string().max(200)).max(50).optional(),
  subscriptionType: z.string().max(100).nullable().optional(),
  rateLimitTier: z.string().max(100).nullable().optional(),
});

/** The keys of `.claude.json` that are the login (the account), nothing else of it. */
const ACCOUNT_KEYS = ["oauthAccount", "userID", "primaryApiKey", "customApiKeyResponses", "hasCompletedOnboarding", "lastOnboardingVersion"] as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const slugDir = /^projects\/[^/]+\//;

export const CLAUDE_HOME: CliHomeLayout = {
  env: "CLAUDE_CONFIG_DIR",
  credentials: [
    {
      path: ".credentials.json",
      pick: (json) => {
        const r = isRecord(json) ? oauth.safeParse(json.claudeAiOauth) : null;
        if (!r?.success) return null;
        const { accessToken, refreshToken, expiresAt, scopes, subscriptionType, rateLimitTier } = r.data;
        return { claudeAiOauth: { accessToken, refreshToken, expiresAt, scopes, subscriptionType, rateLimitTier } };
      },
      // A refresh moves the expiry on; a run never replaces the login with an older one.
      accepts: (login, run) => {
        const at = (x: Record<string, unknown> | null) => {
          const o = x && isRecord(x.claudeAiOauth) ? x.claudeAiOauth.expiresAt : undefined;
          return typeof o === "number" ? o : 0;
        };
        return at(run) > at(login);
      },
    },
    {
      path: ".claude.json",
      pick: (json) => {
        if (!isRecord(json)) return null;
        const kept = Object.fromEntries(ACCOUNT_KEYS.filter((k) => json[k] !== undefined).map((k) => [k, json[k]]));
        return Object.keys(kept).length ? kept : null;
      },
    },
  ],
  isTranscript: (rel, id) => slugDir.test(rel) && (rel.endsWith(`/${id}.jsonl`) || rel.includes(`/${id}/`)) && rel.split("/").length >= 3,
};
