// Alerts: POST JSON to the operator's webhook (undici), HMAC-SHA256 signed when a secret is set
// (header X-Hermes-Bridge-Signature: sha256=<hex HMAC-SHA256 of the raw body>), retried with backoff.
// Sent from the background sender (alerts.ts): a failure here turns an outbox entry into a dead letter.
import { createHmac } from "node:crypto";
import pRetry from "p-retry";
import { BridgeError } from "../errors/index.js";
import { redactUrl } from "../result/redact.js";

export interface AlertPayload {
  /**
   * isolation_off: the seat started with its agents unjailed (agent.isolation fell back or is user/none) or on the host's network (network: host); once per start.
   * board_corrupt: a board's database refuses to open (`error` names `hermes kanban --board <slug> repair`); once until the board answers again.
   */
  event: "close_failed" | "lease_lost" | "isolation_off" | "board_corrupt" | "test";
  /** The outbox entry the alert is about (none for a test alert). */
  entry_id?: string;
  board: string;
  task_id: string;
  run_id: number | null;
  trace_id: string;
  intended_close: unknown;
  error: string | null;
  at: string;
}

export class WebhookError extends BridgeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("webhook_failed", message, options);
  }
}

export interface Alerter {
  send(payload: AlertPayload, signal?: AbortSignal): Promise<void>;
}

export function signature(body: string, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export class WebhookAlerter implements Alerter {
  constructor(private readonly o: { url: string | undefined; secret?: string | undefined; timeoutMs: number; retries: number; minDelayMs?: number }) {}

  async send(payload: AlertPayload, signal?: AbortSignal): Promise<void> {
    const url = this.o.url;
    if (!url) throw new WebhookError("no webhook configured (webhook.url): the alert could not be sent");
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "hermes-kanban-bridge" };
    if (this.o.secret) headers["x-hermes-bridge-signature"] = signature(body, this.o.secret);
    await pRetry(
      async () => {
        // undici is loaded with the first alert: a bridge that never alerts does not carry it.
        const { request } = await import("undici");
        let res: Awaited<ReturnType<typeof request>>;
        try {
          res = await request(url, {
            method: "POST",
            body,
            headers,
            headersTimeout: this.o.timeoutMs,
            bodyTimeout: this.o.timeoutMs,
            signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(this.o.timeoutMs)]) : AbortSignal.timeout(this.o.timeoutMs),
          });
        } catch (err) {
          throw new WebhookError(`webhook POST ${redactUrl(url)} failed: ${(err as Error).message}`, { cause: err });
        }
        await res.body.dump();
        if (res.statusCode < 200 || res.statusCode >= 300) throw new WebhookError(`webhook POST ${redactUrl(url)} answered HTTP ${res.statusCode}`);
      },
      { retries: this.o.retries, minTimeout: this.o.minDelayMs ?? 500, factor: 2, randomize: true, signal },
    );
  }
}
