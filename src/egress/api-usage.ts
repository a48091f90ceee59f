// The seat's key on the books: every request the run's proxy forwards to the agent CLI's API (the
// `/hkb-api/` route, where the proxy puts the real key in) is counted — requests, bytes each way, and the
// tokens the API's answer reports: `usage` of a JSON answer (Anthropic Messages, OpenAI Chat Completions and
// Responses) or of its server-sent events (Anthropic `message_start`/`message_delta`, OpenAI's final chunk,
// Responses' `response.completed`). Whichever process of the jail made the request, it is counted: the
// CLI's own report is reconciled with this (run/work/budget.ts). An answer is read as it passes, never held back.
import { StringDecoder } from "node:string_decoder";
import { Transform, type TransformCallback } from "node:stream";

export interface ApiTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface ApiUse {
  requests: number;
  /** Request bodies toward the API. */
  bytesOut: number;
  /** Answers from it. */
  bytesIn: number;
  /** As the answers reported them (Anthropic's input excludes the cache, OpenAI's includes it: as the CLI reports each). */
  tokens: ApiTokens;
  /** Successful answers to a POST that reported no usage the proxy could read (cut, over the cap, another format). */
  unread: number;
}

/** An answer's JSON is read whole up to this; an event's line up to LINE_CAP. Beyond: counted, not read. */
const JSON_CAP = 8 * 1024 * 1024;
const LINE_CAP = 1024 * 1024;

const n = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 && v < 1e12 ? Math.floor(v) : 0);
const o = (v: unknown): Record<string, unknown> | null => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** A `usage` object of either API family, as tokens (null: not one). */
function tokensOf(u: Record<string, unknown> | null): ApiTokens | null {
  if (!u) return null;
  const input = u.input_tokens ?? u.prompt_tokens;
  const output = u.output_tokens ?? u.completion_tokens;
  if (input === undefined && output === undefined) return null;
  const details = o(u.prompt_tokens_details) ?? o(u.input_tokens_details);
  return {
    input: n(input),
    output: n(output),
    cacheRead: n(u.cache_read_input_tokens ?? details?.cached_tokens),
    cacheWrite: n(u.cache_creation_input_tokens),
  };
}

/** The usage one JSON document (an answer, or one event's data) carries, wherever the APIs put it. */
function usageIn(doc: unknown): ApiTokens | null {
  const d = o(doc);
  if (!d) return null;
  return tokensOf(o(d.usage)) ?? tokensOf(o(o(d.message)?.usage)) ?? tokensOf(o(o(d.response)?.usage));
}

/** Within one answer the figures are running totals (message_start, then message_delta's): the largest of each. */
const most = (a: ApiTokens | null, b: ApiTokens): ApiTokens =>
  a
    ? {
        input: Math.max(a.input, b.input),
        output: Math.max(a.output, b.output),
        cacheRead: Math.max(a.cacheRead, b.cacheRead),
        cacheWrite: Math.max(a.cacheWrite, b.cacheWrite),
      }
    : b;

export class ApiMeter {
  private readonly use: ApiUse = { requests: 0, bytesOut: 0, bytesIn: 0, tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, unread: 0 };

  constructor(private readonly onChange?: (use: ApiUse) => void) {}

  snapshot(): ApiUse {
    return { ...this.use, tokens: { ...this.use.tokens } };
  }

  /** One request forwarded (its body is counted as it goes: `sent`). */
  request(): void {
    this.use.requests += 1;
    this.changed();
  }

  sent(bytes: number): void {
    this.use.bytesOut += bytes;
  }

  /** The answer's body passes through this (unchanged); its usage is counted when it ends (`settle`: or is cut). */
  answer(o: { status: number; method: string; contentType: string }): Transform & { settle(): void } {
    return new AnswerReader(o, this);
  }

  /** @internal an answer's end. */
  answered(bytes: number, tokens: ApiTokens | null, expected: boolean): void {
    this.use.bytesIn += bytes;
    if (tokens) for (const k of ["input", "output", "cacheRead", "cacheWrite"] as const) this.use.tokens[k] += tokens[k];
    else if (expected) this.use.unread += 1;
    this.changed();
  }

  private changed(): void {
    this.onChange?.(this.snapshot());
  }
}

class AnswerReader extends Transform {
  private bytes = 0;
  private tokens: ApiTokens | null = null;
  private readonly sse: boolean;
  private readonly json: boolean;
  private body: Buffer[] = [];
  private bodyBytes = 0;
  private line = "";
  private overLine = false;
  private readonly text = new StringDecoder("utf8");

  constructor(
    private readonly o: { status: number; method: string; contentType: string },
    private readonly meter: ApiMeter,
  ) {
    super();
    this.sse = /text\/event-stream/i.test(o.contentType);
    this.json = !this.sse && /json/i.test(o.contentType);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.sse) this.events(this.text.write(chunk));
    else if (this.json && this.bodyBytes + chunk.length <= JSON_CAP) {
      this.body.push(chunk);
      this.bodyBytes += chunk.length;
    } else this.body = [];
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    this.settle();
    done();
  }

  private settled = false;

  /** Counts the answer once: at its end, or where it was cut (what it reported before the cut). */
  settle(): void {
    if (this.settled) return;
    this.settled = true;
    if (this.sse) this.events(`${this.text.end()}\n`);
    else if (this.json && this.body.length) {
      try {
        const t = usageIn(JSON.parse(Buffer.concat(this.body).toString("utf8")));
        if (t) this.tokens = most(this.tokens, t);
      } catch {
        // not JSON after all: counted as unread
      }
    }
    const ok = this.o.status >= 200 && this.o.status < 300 && this.o.method === "POST";
    this.meter.answered(this.bytes, this.tokens, ok);
  }

  /** Server-sent events: every `data:` line is one JSON document (a line cut by a chunk waits for its rest). */
  private events(text: string): void {
    const lines = (this.line + text).split("\n");
    this.line = lines.pop() ?? "";
    if (this.line.length > LINE_CAP) {
      this.line = "";
      this.overLine = true;
    }
    for (const raw of lines) {
      if (this.overLine) {
        this.overLine = false; // the rest of a line that was too long
        continue;
      }
      const l = raw.replace(/\r$/, "");
      if (!l.startsWith("data:")) continue;
      try {
        const t = usageIn(JSON.parse(l.slice(5).trim()));
        if (t) this.tokens = most(this.tokens, t);
      } catch {
        // `[DONE]`, or not JSON
      }
    }
  }
}
