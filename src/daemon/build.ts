// Composition root: config → boards, agent, outbox, alerter, closer. No I/O until used.
import { join } from "node:path";
import { createAgent, promptFileFor } from "../agents/factory.js";
import { type AgentAdapter, agentEnv } from "../agents/port.js";
import { type Board, type CliCallRecord, HermesCliBoard } from "../board/index.js";
import type { Config } from "../config/schema.js";
import type { Logger } from "../log/logger.js";
import { Metrics } from "../observe/metrics.js";
import { Outbox } from "../outbox/outbox.js";
import { WebhookAlerter } from "../outbox/webhook.js";
import { Redactor } from "../result/redact.js";
import { Closer } from "../run/closer.js";
import { loadTemplate } from "../run/prompt.js";
import { type Clock, systemClock } from "../time/clock.js";

export interface Built {
  boards: Board[];
  agent: AgentAdapter;
  outbox: Outbox;
  closer: Closer;
  redactor: Redactor;
  promptTemplate: string;
  metrics: Metrics;
  gateEnv: Record<string, string>;
}

export function buildBoards(c: Config, env: NodeJS.ProcessEnv, log?: Logger, clock: Clock = systemClock, metrics?: Metrics): Board[] {
  return c.boards.map(
    (slug) =>
      new HermesCliBoard({
        slug,
        command: c.hermes.command,
        env: { parent: env, passEnv: c.hermes.passEnv, set: { ...c.hermes.env, ...(c.hermes.home ? { HERMES_HOME: c.hermes.home } : {}) }, author: c.author },
        timeoutMs: c.hermes.callTimeoutSeconds * 1000,
        textCapBytes: c.hermes.textCapBytes,
        retry: { retries: c.hermes.retry.retries, minDelayMs: c.hermes.retry.minDelayMs, maxDelayMs: c.hermes.retry.maxDelayMs, deadlineMs: c.hermes.retry.deadlineSeconds * 1000 },
        clock,
        onRetry: (verb, err, attempt) => log?.warn({ board: slug, verb, attempt, err: err.message }, "board call failed; retrying"),
        ...(metrics ? { onCall: (r: CliCallRecord) => metrics.cliCall(r.verb, r.exitCode, r.durationMs) } : {}),
      }),
  );
}

export function buildAgent(c: Config, env: NodeJS.ProcessEnv, clock: Clock = systemClock): AgentAdapter {
  return createAgent(c, env, clock);
}

export function build(c: Config, env: NodeJS.ProcessEnv, log: Logger, clock: Clock = systemClock): Built {
  const metrics = new Metrics();
  const boards = buildBoards(c, env, log, clock, metrics);
  const bySlug = new Map(boards.map((b) => [b.slug, b]));
  const secretNames = [...c.secrets.env, ...(c.webhook.secretEnv ? [c.webhook.secretEnv] : [])];
  const redactor = Redactor.fromEnv(secretNames, env);
  const outbox = new Outbox(join(c.stateDir), () => new Date(clock.now()));
  const alerter = new WebhookAlerter({
    url: c.webhook.url,
    secret: c.webhook.secretEnv ? env[c.webhook.secretEnv] : undefined,
    timeoutMs: c.webhook.timeoutSeconds * 1000,
    retries: c.webhook.retries,
  });
  const closer = new Closer({
    board: (slug) => {
      const b = bySlug.get(slug) ?? buildBoards({ ...c, boards: [slug] }, env, log, clock)[0];
      if (!b) throw new Error(`no board ${slug}`);
      return b;
    },
    outbox,
    alerter,
    redactor,
    author: c.author,
    seat: c.assignee,
    now: () => new Date(clock.now()),
    log: (level, msg, data) => log[level](data, msg),
  });
  return { boards, agent: buildAgent(c, env, clock), outbox, closer, redactor, promptTemplate: loadTemplate(promptFileFor(c)), metrics, gateEnv: agentEnv(env, c.agent.passEnv, c.agent.env) };
}
