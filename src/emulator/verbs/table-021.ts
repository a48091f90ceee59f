// The verb table of the 0.21 mode: 0.20.0's verbs with 0.21.3's options and review hand-off, and its
// one new verb (request-changes). Outside the mode, the table as it is.
import { v021 } from "../io.js";
import { withOptions } from "./named-claims.js";
import { reopenReview021, requestChanges, requestReview021 } from "./review-021.js";
import type { Verb } from "./types.js";

export function line021Table(table: Record<string, Verb>, env: NodeJS.ProcessEnv): Record<string, Verb> {
  if (!v021(env)) return table;
  const out: Record<string, Verb> = { ...table, "request-review": requestReview021, "reopen-review": reopenReview021, "request-changes": requestChanges };
  const create = table.create;
  if (create)
    out.create = {
      ...create,
      spec: withOptions(create.spec, [{ flag: "--completion-contract", dest: "completion_contract", kind: "value", metavar: "CONTRACT" }]),
    };
  return out;
}
