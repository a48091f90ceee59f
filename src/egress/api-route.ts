// The agent CLI's own API through the run's proxy (`/hkb-api/<name>/…`): the jail holds a placeholder for
// the seat's key, and the key goes back in only where a client sends its key — `x-api-key`, `api-key`,
// `authorization` (`Bearer <key>` or the key alone) — and only when the whole value is the placeholder. A
// placeholder anywhere else in a request is refused (an API that quotes a header it did not like would
// otherwise hand the key back). The answer is masked on its way back: the real key, wherever it shows in
// the API's headers or body, becomes the placeholder again (the body uncompressed: the request asks for
// no encoding), across chunk boundaries.
import { Transform, type TransformCallback } from "node:stream";

/** The agent CLI's API, as the jail sees it: a path prefix of the relay, forwarded to `upstream` with the seat's keys. */
export interface ApiRoute {
  name: string;
  upstream: string;
  /** Placeholder (what the jail's environment holds) → the real value, put into headers toward `upstream` only. */
  secrets: ReadonlyMap<string, string>;
}

/**
 * Why the path after `/hkb-api/<name>` may not be forwarded, or null. It is appended to the API's base URL,
 * whose own path may be a prefix (a gateway's `/proxy/anthropic`): a dot segment (`..`, `.`, also spelled
 * `%2e`, or with `;parameters`), an empty segment (`//`), an encoded or a back slash, an encoded percent or a
 * fragment would let the request climb out of that prefix at the upstream (which decodes and normalizes
 * it) — refused, never normalized here.
 */
export function apiTailProblem(tail: string): string | null {
  // A fragment is no part of a request's target: what follows `#` would reach the upstream unchecked.
  if (tail.includes("#")) return "a fragment (#)";
  const path = tail.split("?", 1)[0] ?? "";
  if (/%2e/i.test(path)) return "an encoded dot (%2e)";
  if (/%2f|%5c|\\/i.test(path)) return "an encoded or a back slash";
  // `%25` is `%` itself: a gateway that decodes once hands `%2e%2e` to one that decodes again.
  if (/%25/i.test(path)) return "an encoded percent (%25)";
  if (path.includes("//")) return "an empty path segment (//)";
  // A segment's `;` parameters are dropped by some servers before the dots are resolved (`..;` is `..`).
  if (path.split("/").some((seg) => /^\.\.?(;|$)/.test(seg))) return "a dot segment (. or .., also with ;parameters)";
  return null;
}

const KEY_HEADERS = new Set(["x-api-key", "api-key", "authorization"]);

type Headers = Record<string, string | string[] | undefined>;

/** The request's headers toward the API, the key in its own header; or why the request is refused. */
export function apiHeaders(headers: Headers, secrets: ReadonlyMap<string, string>): { headers: Headers } | { refused: string } {
  const out: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    const has = values.some((v) => [...secrets.keys()].some((p) => v.includes(p)));
    if (!has) {
      out[name] = value;
      continue;
    }
    if (!KEY_HEADERS.has(name) || Array.isArray(value))
      return { refused: `the key's placeholder may only be sent as the key (in ${[...KEY_HEADERS].join(", ")}), not in ${name}` };
    const bearer = /^Bearer (\S+)$/i.exec(value);
    const real = secrets.get(bearer ? (bearer[1] ?? "") : value);
    if (real === undefined) return { refused: `${name} holds more than the key's placeholder` };
    out[name] = bearer ? `Bearer ${real}` : real;
  }
  // An answer the proxy can read to mask it: never compressed.
  delete out["accept-encoding"];
  delete out["proxy-connection"];
  return { headers: out };
}

/**
 * A key shorter than this is not masked in answers: it is no secret worth the name (a test's "k"), and
 * masking it would corrupt every answer that contains those letters. Real API keys are tens of characters.
 */
export const MASK_MIN_CHARS = 8;
const maskable = (real: string) => real.length >= MASK_MIN_CHARS;

const replaceAll = (s: string, secrets: ReadonlyMap<string, string>) => {
  let out = s;
  for (const [placeholder, real] of secrets) if (maskable(real)) out = out.split(real).join(placeholder);
  return out;
};

/** The API's answer headers with the real key masked. */
export function maskedHeaders(headers: Headers, secrets: ReadonlyMap<string, string>): Headers {
  const out: Headers = {};
  for (const [k, v] of Object.entries(headers)) out[k] = v === undefined ? v : Array.isArray(v) ? v.map((x) => replaceAll(x, secrets)) : replaceAll(v, secrets);
  // The masked body's length may differ from the upstream's.
  delete out["content-length"];
  return out;
}

/** The API's answer body with every occurrence of a real key replaced by its placeholder, also across chunks. */
export class KeyMask extends Transform {
  private tail = Buffer.alloc(0);
  private readonly keep: number;
  private readonly pairs: [Buffer, Buffer][];

  constructor(secrets: ReadonlyMap<string, string>) {
    super();
    this.pairs = [...secrets].filter(([, real]) => maskable(real)).map(([p, real]) => [Buffer.from(real), Buffer.from(p)]);
    this.keep = Math.max(0, ...this.pairs.map(([real]) => real.length - 1));
  }

  private mask(b: Buffer): Buffer {
    let out = b;
    for (const [real, placeholder] of this.pairs) {
      const parts: Buffer[] = [];
      let from = 0;
      for (let i = out.indexOf(real, from); i !== -1; i = out.indexOf(real, from)) {
        parts.push(out.subarray(from, i), placeholder);
        from = i + real.length;
      }
      if (parts.length) out = Buffer.concat([...parts, out.subarray(from)]);
    }
    return out;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const all = this.mask(Buffer.concat([this.tail, chunk]));
    // What may be the start of a key split across chunks waits for the next one.
    const cut = Math.max(0, all.length - this.keep);
    this.tail = Buffer.from(all.subarray(cut));
    done(null, all.subarray(0, cut));
  }

  override _flush(done: TransformCallback): void {
    done(null, this.mask(this.tail));
  }
}
