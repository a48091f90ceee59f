// The words an agent CLI uses when no answer came from its API at all (no HTTP status): a name that does not
// resolve, a refused or reset connection, no route, a connect timeout. An HTTP error (401, 429, 5xx) is an
// answer, and is not one of these. One home for every kind's translator (agents/<kind>/translate.ts).
const NO_ANSWER =
  /failed to lookup address|Name does not resolve|error sending request|waiting for network|Connection (?:refused|failed|reset|error|timed out)|ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|Unable to connect|fetch failed|connect(?:ion)? timeout|dns error|tcp connect error|socket hang up/i;

/** The text says the API never answered (see above). */
export function noAnswerFromApi(text: string): boolean {
  return NO_ANSWER.test(text) && !/\b(?:401|403|429|5\d\d)\b/.test(text);
}
