// What a close says (pure): the bridge part of the metadata (usage, session, workspace, exit), the
// block reason with the run's facts (a cut names its last note and changed files; one usage line; the
// session to resume), and why the run was cut, for the session journal.
import { hostname } from "node:os";
import type { FinishedEvent, Usage } from "../../agents/port.js";
import type { CutReason } from "../../continuity/journal.js";
import type { BridgeInfo } from "../../result/common.js";
import type { Decision } from "../../result/decision.js";
import { usageLine } from "../../board/card.js";
import { renderBlock } from "../../result/template.js";
import type { EgressCounts } from "../../egress/proxy.js";
import type { Kept } from "../../agent-files/owner.js";
import { mib } from "../../agent-files/unshare.js";
import type { ApiUse } from "../../egress/api-usage.js";
import type { RetryRecord } from "../events.js";
import type { RunFacts, RunStory } from "../record.js";

/** Why the proxy's count of the API exceeds what the agent reported (the card says so), or null. */
export function apiBeyondReport(cli: Usage | null, api: ApiUse | undefined): string | null {
  if (!api || api.requests === 0) return null;
  const counted = api.tokens.input + api.tokens.output;
  const reported = cli?.tokens ? cli.tokens.input + cli.tokens.output : 0;
  if (counted <= reported) return null;
  const said = cli?.tokens ? `the agent reported ${cli.tokens.input} input / ${cli.tokens.output} output tokens` : "the agent reported none";
  return (
    `the seat's API through the run's proxy: ${api.requests} request(s), ${api.tokens.input} input / ${api.tokens.output} output tokens — more than ${said}: ` +
    "a process of the jail may have used the seat's key off the agent's books (the budgets count the larger figure)"
  );
}

/** What the templated block says of the attempts before it. */
export function retriesText(rs: readonly RetryRecord[]): string {
  if (rs.length === 0) return "";
  const list = rs.map((r) => `attempt ${r.attempt} ended at ${new Date(r.at).toISOString()} (${r.cause}: ${r.detail.slice(0, 200)})`).join("; ");
  return ` The run was started again ${rs.length} time${rs.length === 1 ? "" : "s"} before this block (agent.retries): ${list}; the last attempt ended as above.`;
}

/** The bridge part of a close's metadata; the run id is the lease's at the close (the run's one record). */
export function bridgeInfo(s: RunStory, runId: number | null, fin: FinishedEvent | null, stop: string | null): BridgeInfo {
  const u = s.usage;
  const info: BridgeInfo = {
    trace_id: s.traceId,
    seat: s.seat,
    host: hostname(),
    usage: u?.tokens || u?.costUsd !== undefined ? "measured" : "unmeasured",
    agent: s.agent,
    run_id: runId,
    started_at: new Date(s.startedAt).toISOString(),
    duration_ms: s.now - s.startedAt,
    exit: { code: fin?.exitCode ?? null, signal: fin?.signal ?? null, reason: stop ?? fin?.reason ?? "unknown" },
  };
  const model = u?.model ?? s.model;
  if (model) info.model = model;
  if (s.skills?.length) info.skills = s.skills;
  if (u?.turns !== undefined) info.turns = u.turns;
  if (u?.costUsd !== undefined) info.cost_usd = u.costUsd;
  if (u?.tokens) {
    info.tokens = { input: u.tokens.input, output: u.tokens.output };
    if (u.tokens.cacheRead !== undefined) info.tokens.cache_read = u.tokens.cacheRead;
    if (u.tokens.cacheWrite !== undefined) info.tokens.cache_write = u.tokens.cacheWrite;
  }
  if (s.session) info.session = s.session;
  if (s.retries?.length)
    info.retries = s.retries.map((r) => ({ attempt: r.attempt, cause: r.cause, detail: r.detail.slice(0, 300), at: new Date(r.at).toISOString() }));
  if (s.reopen) info.reopen = s.reopen;
  if (s.isolation) info.isolation = s.isolation;
  if (s.limits) info.limits = s.limits;
  if (s.egress && (s.egress.blocked.length || s.egress.allowed.length || s.egress.failed?.length)) info.egress = egressOf(s.egress);
  if (s.tools?.used()) {
    const t = s.tools.counts();
    info.tools = { comments: t.comments, comment_bytes: t.commentBytes, heartbeats: t.heartbeats, attachments: t.attachments, refused: t.refused };
  }
  const api = s.egress?.api;
  if (api?.requests) {
    const t = api.tokens;
    info.api = {
      requests: api.requests,
      bytes_out: api.bytesOut,
      bytes_in: api.bytesIn,
      tokens: { input: t.input, output: t.output, cache_read: t.cacheRead, cache_write: t.cacheWrite },
      ...(api.unread ? { unread: api.unread } : {}),
      ...(apiBeyondReport(u, api) ? { beyond_report: true as const } : {}),
    };
  }
  if (s.workspace) info.workspace = s.workspaceNote ? { ...s.workspace, note: s.workspaceNote } : s.workspace;
  if (info.workspace && s.kept) info.workspace = { ...info.workspace, kept: keptOf(s.kept) };
  return info;
}

/** The card's part of the run's network: refusals (host, port, how often) and the bytes per host let through, bounded. */
function egressOf(e: EgressCounts): NonNullable<BridgeInfo["egress"]> {
  return {
    blocked: e.blocked
      .slice(0, 20)
      .map((b) => ({ host: b.host.slice(0, 200), port: b.port, count: b.count, why: b.why.slice(0, 160), ...(b.housekeeping ? { housekeeping: true } : {}) })),
    ...(e.blockedOther ? { blockedOther: e.blockedOther } : {}),
    ...(e.failed?.length
      ? { failed: e.failed.slice(0, 20).map((f) => ({ host: f.host.slice(0, 200), port: f.port, count: f.count, why: f.why.slice(0, 160) })) }
      : {}),
    allowed: e.allowed.slice(0, 20).map((a) => ({ host: a.host.slice(0, 200), bytes: a.bytes })),
  };
}

const keptOf = (k: Kept) => ({
  links: k.links,
  other_filesystems: k.foreign,
  devices: k.devices,
  odd_names: k.odd,
  sample: k.sample.map((p) => p.slice(0, 200)),
  ...(k.writable ? { writable: true } : {}),
  ...(k.copied ? { copied: k.copied, copied_bytes: k.copiedBytes ?? 0 } : {}),
});

const sampleOf = (k: Kept) =>
  k.sample.length
    ? ` — e.g. ${k.sample
        .slice(0, 3)
        .map((p) => JSON.stringify(p.slice(0, 160)))
        .join(", ")}`
    : "";

/** What the hand-over left as it was: on every card of the run (the agent could read but not change it). */
export const keptLine = (k: Kept): string => {
  if (k.writable) return sharedLine(k);
  if (k.copied) return copiedLine(k);
  const parts = [
    k.links
      ? `${k.links} with a name outside the workspace too (hard links: a clone's objects, a package store; any hard link, in a workspace the agent's user held already)`
      : "",
    k.foreign ? `${k.foreign} mounted inside it (another filesystem, a bind mount)` : "",
    k.devices ? `${k.devices} device nodes` : "",
    k.odd ? `${k.odd} whose names are not UTF-8` : "",
  ].filter(Boolean);
  return `workspace: left as they were, read-only to the agent (never handed to its user): ${parts.join("; ")}${sampleOf(k)}. A step that rewrites one of them in place fails; copy it first.`;
};

/** A bridge that runs its agent as its own user: the hard links out of the workspace were the agent's to rewrite. */
const sharedLine = (k: Kept): string =>
  `workspace: ${[
    k.links || !k.foreign ? `${k.links} file(s) with a name outside the workspace too (hard links: a clone's objects, a package store)` : "",
    k.foreign ? `${k.foreign} mounted inside it (another filesystem, a bind mount)` : "",
  ]
    .filter(Boolean)
    .join(
      "; ",
    )}${sampleOf(k)} were writable by the agent — this bridge runs it as its own user, who owns them, and agent.isolation.sharedFiles is keep, so a rewrite in place reaches every other name of them. Check them (git fsck in the source repository, the package store's integrity); the default (copy) gives each run private copies first, or work on copies (git clone --no-hardlinks; pnpm's package-import-method copy) or under a bridge run as root, which keeps them read-only.`;

/** A bridge that runs its agent as its own user gave the hard links out of the workspace private copies first. */
const copiedLine = (k: Kept): string =>
  `workspace: ${k.copied} file(s) that shared their data with a name outside the workspace (hard links: a clone's objects, a package store)${sampleOf(k)} were given private copies (${mib(k.copiedBytes ?? 0)}) before the agent started — this bridge runs it as its own user, who could otherwise rewrite them at every name (agent.isolation.sharedFiles).`;

/**
 * A done card's summary: the agent's, then what a board user cannot see elsewhere — where the work went when
 * the board's path does not hold it (a checkout of this host's), and what the run's network refused.
 */
export function completeSummary(summary: string, s: RunStory): string {
  const extra = [
    s.workspace?.mode === "checkout" && s.workspaceNote ? `Workspace: ${s.workspaceNote}` : "",
    s.egress?.blocked.some((b) => !b.housekeeping) ? egressLine(s.egress, { housekeeping: false }) : "",
    s.kept ? keptLine(s.kept) : "",
    apiBeyondReport(s.usage, s.egress?.api) ?? "",
    toolsLine(s),
  ].filter(Boolean);
  return extra.length ? `${summary}\n\n${extra.join("\n\n")}` : summary;
}

/**
 * What the run's network refused, each host with why (a failed run's block: often why it failed); the
 * allowHosts entry that lets one through only where the bridge may suggest one (a public name: never an
 * address, a local or a metadata name). The CLI's own housekeeping calls are counted apart, never advised.
 */
export const egressLine = (e: EgressCounts, o: { housekeeping?: boolean } = {}): string => {
  const asked = e.blocked.filter((b) => !b.housekeeping);
  const quiet = o.housekeeping === false ? [] : e.blocked.filter((b) => b.housekeeping);
  const advice = [...new Set(asked.flatMap((b) => (b.advice ? [b.advice] : [])))].slice(0, 3);
  const refused = asked.length
    ? `egress refused: ${asked
        .slice(0, 8)
        .map((b) => `${b.host}:${b.port} ×${b.count} (${b.why.slice(0, 120)})`)
        .join("; ")}${asked.length > 8 || e.blockedOther ? "; and more" : ""}${
        advice.length ? ` — an entry in agent.isolation.allowHosts lets one through (${advice.map((a) => `"${a}"`).join(", ")})` : ""
      }`
    : "";
  const housekeeping = quiet.length
    ? `the agent CLI's own housekeeping calls, refused (not needed): ${quiet
        .slice(0, 5)
        .map((b) => `${b.host}:${b.port} ×${b.count}`)
        .join(", ")}`
    : "";
  const failed = e.failed?.length
    ? `egress failed: ${e.failed
        .slice(0, 5)
        .map((f) => f.why.slice(0, 120))
        .join("; ")}`
    : "";
  return [refused, housekeeping, failed].filter(Boolean).join("\n");
};

/** What the task tools refused past the run's budget (agent.budget.tools), or "". */
export function toolsLine(s: RunStory): string {
  const r = s.tools?.counts().refused;
  if (!r || !s.tools || r.comments + r.heartbeats + r.attachments === 0) return "";
  const l = s.tools.limits;
  const parts = [
    r.comments ? `${r.comments} comment(s) (comments: ${l.comments}, commentBytes: ${l.commentBytes})` : "",
    r.heartbeats ? `${r.heartbeats} heartbeat(s) (heartbeatsPerMinute: ${l.heartbeatsPerMinute})` : "",
    r.attachments ? `${r.attachments} attachment(s) (attachments: ${l.attachments})` : "",
  ].filter(Boolean);
  return `task tools past this run's budget (agent.budget.tools), refused: ${parts.join("; ")} — the agent was told each time; a task that needs more: raise them in the seat's agent.budget.tools and restart the seat`;
}

/** What every block of a run without a jail of its own says (agent.isolation user or none). */
export const isolationLine = (i: { mode: string; why: string }): string =>
  `isolation: ${i.mode} — the agent ran without a jail of its own (${i.why.slice(0, 300)})`;

/** The story's confinement: how the agent was jailed (unless bubblewrap) and capped (unless a scope or cgroup). */
export function confinementStory(
  p: { mode: string; why: string; limits?: { mode: string; why: string; card: string } | undefined } | undefined,
): Pick<RunStory, "isolation" | "limits"> {
  const l = p?.limits;
  return {
    ...(p && p.mode !== "bwrap" ? { isolation: { mode: p.mode, why: p.why } } : {}),
    // The card's words (the caps and what they leave out), not the host's reasons: those are doctor's.
    ...(l && (l.mode === "rlimit" || l.mode === "none") ? { limits: { mode: l.mode, why: l.card } } : {}),
  };
}

/** What every block of a run whose caps no cgroup enforced says (agent.limits rlimit or none): the seat's caps, whole. */
export const limitsLine = (l: { mode: string; why: string }): string =>
  `limits: ${l.mode} — ${l.mode === "rlimit" ? "this seat caps each process of its runs, not the run" : "this seat does not cap its runs"}: ${cutAtWord(l.why, 800)}`;

/** `t` cut at a word boundary before `max` characters, with an ellipsis when cut. */
const cutAtWord = (t: string, max: number): string => (t.length <= max ? t : `${t.slice(0, t.lastIndexOf(" ", max - 1)).replace(/[\s,;:—(]+$/, "")} …`);

/** The run's usage line (board/card.ts): every close that has no metadata carries one. */
export const storyUsage = (s: RunStory): string => {
  const api = s.egress?.api;
  const counted = api ? { requests: api.requests, input: api.tokens.input, output: api.tokens.output } : undefined;
  return usageLine(s.usage, s.model, s.seat, { api: counted, agent: s.agent, retries: s.retries?.map((r) => r.cause) });
};

/** A cut: the run stopped before the agent finished (the block names where it got to). */
const CUTS = new Set<CutReason>(["deadline", "usage_limit", "shutdown", "stall", "crash", "unresolved", "auth", "budget", "cap"]);

export function blockReason(d: Extract<Decision, { type: "block" }>, s: RunStory, cut: CutReason, lease: { workspace: string; runId: number | null }): string {
  let what = `${d.template.what_happened} (workspace ${lease.workspace}, run ${lease.runId ?? "?"}, trace ${s.traceId})`;
  if (CUTS.has(cut)) {
    what += ` Last progress note: ${s.lastNote ? JSON.stringify(s.lastNote.slice(0, 300)) : "(none)"}.`;
    if (s.changedFiles)
      what += ` Files changed so far: ${s.changedFiles.length ? s.changedFiles.slice(0, 20).join(", ") + (s.changedFiles.length > 20 ? `, +${s.changedFiles.length - 20} more` : "") : "none"}.`;
  }
  if (s.workspaceNote) what += ` Workspace: ${s.workspaceNote}.`;
  if (s.retries?.length) what += retriesText(s.retries);
  const lines = [renderBlock({ ...d.template, what_happened: what })];
  if (s.session)
    lines.push(
      `session: ${s.session.id}${s.session.resumed ? " (resumed)" : ""} — unblock to continue; the next run of this seat resumes session ${s.session.id}`,
    );
  if (s.isolation) lines.push(isolationLine(s.isolation));
  if (s.limits) lines.push(limitsLine(s.limits));
  if (s.kept) lines.push(keptLine(s.kept));
  if (s.egress?.blocked.length || s.egress?.failed?.length) lines.push(egressLine(s.egress));
  const beyond = apiBeyondReport(s.usage, s.egress?.api);
  if (beyond) lines.push(beyond);
  if (toolsLine(s)) lines.push(toolsLine(s));
  // The usage line is the reason's last line: that is where the card's reader takes it from (board/card.ts).
  lines.push(storyUsage(s));
  return lines.join("\n");
}

/** Why a run that did not complete ended, in the session journal's terms. */
export function cutReasonOf(f: RunFacts, d: Decision): CutReason {
  if (d.type === "lost" || f.stop === "lease_lost") return "lease_lost";
  if (f.stop === "deadline") return "deadline";
  if (f.stop === "shutdown") return "shutdown";
  if (f.stop === "unresolved") return "unresolved";
  if (f.stop === "budget") return "budget";
  if (f.stop === "cap" || f.stop === "exposed") return "cap";
  if (f.authFailed) return "auth";
  if (f.limit) return "usage_limit";
  if (f.finished?.reason === "stalled") return "stall";
  if (d.type === "block" && d.template.cause === "test failure" && f.outcome?.kind === "complete") return "gate";
  if (f.outcome?.kind === "block") return "blocked";
  if (f.finished && (f.finished.exitCode !== 0 || f.finished.signal !== null) && !f.finished.exitUnknown) return "crash";
  return "failed";
}
