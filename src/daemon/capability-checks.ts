// What the config asks of the boards' CLIs, checked once their capabilities are read at start: a
// setting the CLI cannot honour is refused with the key to change, never discovered at the first close.
import type { Capabilities } from "../board/index.js";
import type { Config } from "../config/schema.js";
import { ConfigError } from "../errors/index.js";

/** close.review (always, or a reviewer) needs `request-review` on every board: refused at start where a CLI lacks it. */
export function reviewSupported(c: Config, caps: ReadonlyMap<string, Capabilities | null>): void {
  if (c.close.review === "never" || (c.close.review === "when-asked" && c.close.reviewer === undefined)) return;
  const lacking = [...caps].filter(([, k]) => k && !k.review).map(([b, k]) => `${b} (Hermes ${k?.version ?? "?"})`);
  if (lacking.length > 0)
    throw new ConfigError([
      {
        path: c.close.review === "always" ? "close.review" : "close.reviewer",
        message: `needs \`hermes kanban request-review\`, which the CLI of board(s) ${lacking.join(", ")} does not have: set close.review: never, or upgrade Hermes`,
      },
    ]);
}
