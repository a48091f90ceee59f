// Every block a run makes, in one table keyed by its cause (`BlockKey`): how the agent's run ended
// (agent.ts: work/decide.ts picks the key from the facts), why its agent was never started (before.ts),
// and what the bridge's own checks found after it (after.ts). Each key's text takes its own arguments;
// `blockFor` is the one way a run words a block. Nothing here decides anything. (A close the board itself
// refused is worded where the outbox replaces it, also on `outbox replay`: outbox/refusal-text.ts.)
import { type Decision, blockDecision } from "../../result/decision.js";
import { AFTER_AGENT, type AfterAgentArgs } from "./after.js";
import { AGENT_ENDS, type AgentEndArgs } from "./agent.js";
import { BEFORE_AGENT, type BeforeAgentArgs } from "./before.js";
import type { BlockText, BlockTexts } from "./text.js";

export type { BlockDetail } from "./agent.js";

/** Every cause of a run's block, and what its text names. */
export interface BlockArgs extends AgentEndArgs, BeforeAgentArgs, AfterAgentArgs {}
export type BlockKey = keyof BlockArgs;
/** The keys work/decide.ts picks from the run's facts. */
export type AgentEndKey = keyof AgentEndArgs;

type Shared = (keyof AgentEndArgs & keyof BeforeAgentArgs) | (keyof AgentEndArgs & keyof AfterAgentArgs) | (keyof BeforeAgentArgs & keyof AfterAgentArgs);
/** A compile error names a key two parts of the table both spell (one would hide the other's text). */
export const blockKeysOnce: [Shared] extends [never] ? true : Shared = true;

/** The one table. */
export const BLOCK_TEXTS: BlockTexts<BlockArgs> = { ...AGENT_ENDS, ...BEFORE_AGENT, ...AFTER_AGENT };

/** The templated block of `key` (an unreachable API marks its decision: the run is handed back to the lane). */
export function blockFor<K extends BlockKey>(key: K, ...args: BlockArgs[K]): Decision {
  const text = BLOCK_TEXTS[key] as (...a: BlockArgs[K]) => BlockText;
  const d = blockDecision(...text(...args));
  return key === "unreachable" ? ({ ...d, unreachable: true } as Decision) : d;
}
