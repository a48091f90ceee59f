// POST /v1/chat/completions with stream:true (undici), SSE parsed into one assembled turn.
// Errors are classified for the loop: no tool support, context overflow, unreachable, other.
import { request } from "undici";
import { BridgeError } from "../../errors/index.js";
import { LineSplitter } from "../../process/lines.js";
import { type Turn, TurnAssembler } from "./assemble.js";

export type LlmErrorKind = "no_tools" | "context_overflow" | "unreachable" | "http" | "stalled";

export class LlmError extends BridgeError {
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`llm_${kind}`, message, options);
  }
}

export interface ChatRequest {
  baseUrl: string;
  apiKey: string | undefined;
  body: Record<string, unknown>;
  signal: AbortSignal;
  /** Max wait for headers and between chunks. */
  idleTimeoutMs: number;
}

function classify(status: number, text: string): LlmError {
  if (/does not support tools|tool choice requires|tools? (are|is) not supported/i.test(text))
    return new LlmError("no_tools", `the model does not support tool calling (HTTP ${status}): ${text.slice(0, 300)}`);
  if (/exceed_context_size|context length|maximum context|context window|too many tokens|prompt is too long/i.test(text))
    return new LlmError("context_overflow", `the conversation exceeds the model's context (HTTP ${status}): ${text.slice(0, 300)}`);
  return new LlmError("http", `HTTP ${status}: ${text.slice(0, 300)}`);
}

export async function streamChat(r: ChatRequest): Promise<Turn> {
  const url = `${r.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", ...(r.apiKey ? { authorization: `Bearer ${r.apiKey}` } : {}) },
      body: JSON.stringify({ ...r.body, stream: true, stream_options: { include_usage: true } }),
      signal: r.signal,
      headersTimeout: r.idleTimeoutMs,
      bodyTimeout: r.idleTimeoutMs,
    });
  } catch (err) {
    if (r.signal.aborted) throw err;
    throw new LlmError("unreachable", `the model server at ${url} is not reachable: ${(err as Error).message}`, { cause: err });
  }
  if (res.statusCode >= 400) throw classify(res.statusCode, await res.body.text().catch(() => ""));
  const turn = new TurnAssembler();
  let done = false;
  const lines = new LineSplitter(
    (line) => {
      if (done || !line.startsWith("data:")) return; // comments (':'), event names, blanks
      const data = line.slice(5).trim();
      if (data === "") return;
      if (data === "[DONE]") {
        done = true;
        return;
      }
      try {
        turn.push(JSON.parse(data));
      } catch {
        // a malformed chunk is skipped; the turn is judged on what arrived
      }
    },
    4 * 1024 * 1024,
  );
  try {
    for await (const chunk of res.body) lines.pushBytes(chunk as Buffer | string);
  } catch (err) {
    if (r.signal.aborted) throw err;
    throw new LlmError("stalled", `the model stream broke off: ${(err as Error).message}`, { cause: err });
  }
  lines.end();
  return turn.done();
}
