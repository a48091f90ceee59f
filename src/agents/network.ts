// The words an agent CLI uses when no answer came from its API at all (no HTTP status): a name that does not
// resolve, a refused or reset connection, no route, a connect timeout. An HTTP error (401, 429, 5xx) is an
// answer, and is not one of these. One home for every kind's translator (agents/<kind>/translate.ts).
const NO_ANSWER =
  /failed to lookup address|Name does not resolve|error sending request|waiting for network|Connection (?:refused|failed|reset|error|timed out)|ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|Unable to connect|fetch failed|connect(?:ion)? timeout|dns error|tcp connect error|socket hang up/i;

/** The text says the API never answered (see above). */
export function noAnswerFromApi(text: string): boolean {
  return NO_ANSWER.test(text) && !/\b(?:401|403|429|5\d\d)\b/.test(text);
}

/**
 * The API answered, but with a failure of its own that a later try may not meet (an overload, a 5xx, a stream
 * the server cut mid-turn): "api" — or the connection broke mid-turn after answers came: "connection". Null
 * for anything the task or the seat must change (a 4xx, a refusal, a billing error). The run retries such a
 * failure after a backoff before it blocks the task (run/work/retry.ts).
 */
export function transientApiFailure(text: string, status: number | null = null): "api" | "connection" | null {
  if (status !== null && (status === 408 || status === 409 || status >= 500)) return "api";
  if (status !== null && status < 500) return null;
  if (/billing|credit balance|invalid api key|unauthori[sz]ed|forbidden|permission/i.test(text)) return null;
  if (/overloaded|\b(?:500|502|503|504|529)\b|internal server error|bad gateway|service unavailable|gateway time-?out|api_error|server_error/i.test(text))
    return "api";
  if (/stream disconnected|stream closed|connection (?:closed|dropped|lost)|premature close|unexpected end of (?:stream|JSON)|other side closed/i.test(text))
    return "connection";
  return null;
}
