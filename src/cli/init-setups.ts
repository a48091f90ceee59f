// The first-seat setups `hermes-bridge init` knows: which agent kind each one is, the agent block it
// writes (with a comment per key), and which of the kind's own login steps (agents/<kind>/kind.ts
// `login`) it prints — or, for a setup with no login of the kind's own, what the operator does instead.
import { splitCommand } from "../config/command.js";
import { ExitError } from "../errors/index.js";

export interface SetupInput {
  model?: string | undefined;
  baseUrl?: string | undefined;
  apiKeyEnv?: string | undefined;
  /** The agent's argv (the command agent), or the CLI to run instead of `claude` / `codex` on PATH. */
  agentCommand?: string | undefined;
}

export interface Setup {
  name: string;
  describe: string;
  kind: string;
  /** The agent block: each key with the comment written above it. */
  agent(i: SetupInput): { key: string; value: unknown; comment?: string }[];
  /** The kind's login step this setup uses (its `login` ids), first the usual one. */
  loginIds?: string[];
  /** What the operator does when there is no login step (an API key in the environment, a model server). */
  instead?(i: SetupInput): string[];
}

const need = (setup: string, what: string, v: string | undefined): string => {
  if (v === undefined || v.trim() === "") throw new ExitError(2, `init --agent ${setup}: ${what} is required`);
  return v;
};

const url = (setup: string, v: string | undefined): string => {
  const s = need(setup, "--base-url", v);
  if (!/^https?:\/\/[^\s]+$/.test(s)) throw new ExitError(2, `init --agent ${setup}: --base-url '${s}' is not an http(s) URL`);
  return s;
};

const envName = (setup: string, v: string): string => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) throw new ExitError(2, `init --agent ${setup}: --api-key-env '${v}' is not an environment variable name`);
  return v;
};

const cli = (i: SetupInput) =>
  i.agentCommand ? [{ key: "command", value: splitCommand(i.agentCommand), comment: " the CLI to run (default: the one on PATH)" }] : [];
const model = (i: SetupInput, comment = " the model (default: the CLI's own; a task's `--model` wins)") =>
  i.model ? [{ key: "model", value: i.model, comment }] : [];

export const SETUPS: readonly Setup[] = [
  {
    name: "claude",
    describe: "Claude Code on a Claude subscription (Pro/Max)",
    kind: "claude-code",
    agent: (i) => [
      ...cli(i),
      ...model(i),
      {
        key: "passEnv",
        value: ["CLAUDE_CODE_OAUTH_TOKEN"],
        comment: " used only when the seat logs in with `claude setup-token` (the token in the bridge's environment)",
      },
    ],
    loginIds: ["subscription", "token"],
  },
  {
    name: "claude-api-key",
    describe: "Claude Code on an Anthropic API key (or an Anthropic-compatible gateway: --base-url)",
    kind: "claude-code",
    agent: (i) => [
      ...cli(i),
      ...model(i),
      { key: "passEnv", value: ["ANTHROPIC_API_KEY"], comment: " the key reaches the agent from the bridge's environment (never written here)" },
      ...(i.baseUrl ? [{ key: "env", value: { ANTHROPIC_BASE_URL: url("claude-api-key", i.baseUrl) }, comment: " the API Claude Code talks to" }] : []),
    ],
    instead: () => ["export ANTHROPIC_API_KEY=<your key>   # in the environment `hermes-bridge run` starts with (systemd: an EnvironmentFile)"],
  },
  {
    name: "codex",
    describe: "Codex on a ChatGPT plan",
    kind: "codex",
    agent: (i) => [...cli(i), ...model(i)],
    loginIds: ["chatgpt", "device"],
  },
  {
    name: "codex-api-key",
    describe: "Codex on an OpenAI API key (stored in the seat's own CODEX_HOME)",
    kind: "codex",
    agent: (i) => [...cli(i), ...model(i)],
    loginIds: ["api-key"],
  },
  {
    name: "codex-endpoint",
    describe: "Codex on a custom OpenAI-compatible endpoint (Responses API): --base-url and --model",
    kind: "codex",
    agent: (i) => {
      const base = url("codex-endpoint", i.baseUrl);
      const key = i.apiKeyEnv ? envName("codex-endpoint", i.apiKeyEnv) : undefined;
      const provider = `model_providers.custom={name="custom",base_url="${base}",wire_api="responses"${key ? `,env_key="${key}"` : ""}}`;
      return [
        ...cli(i),
        {
          key: "model",
          value: need("codex-endpoint", "--model", i.model),
          comment: " required with a custom provider: without a model Codex sends it no tools",
        },
        { key: "config", value: ['model_provider="custom"', provider], comment: " Codex's provider overrides (-c key=value)" },
        ...(key ? [{ key: "passEnv", value: [key], comment: " the endpoint's key reaches Codex from the bridge's environment" }] : []),
      ];
    },
    instead: (i) => [
      ...(i.apiKeyEnv ? [`export ${i.apiKeyEnv}=<the endpoint's key>   # in the environment \`hermes-bridge run\` starts with`] : []),
      "# no login: a custom provider's auth is the endpoint's own",
    ],
  },
  {
    name: "local-llm",
    describe: "a local model behind an OpenAI-compatible /v1 API (Ollama, vLLM, llama.cpp): --base-url and --model",
    kind: "local-llm",
    agent: (i) => [
      { key: "baseUrl", value: url("local-llm", i.baseUrl), comment: " the server's /v1 URL" },
      { key: "model", value: need("local-llm", "--model", i.model), comment: " a model the server serves (its /models lists it)" },
      ...(i.apiKeyEnv ? [{ key: "apiKeyEnv", value: envName("local-llm", i.apiKeyEnv), comment: " the variable that holds the server's key" }] : []),
    ],
    instead: (i) => [`# no login: start the model server and make it serve ${i.model ?? "the model"} (Ollama: ollama pull ${i.model ?? "<model>"})`],
  },
  {
    name: "command",
    describe: "any program speaking the outcome-file protocol: --agent-command",
    kind: "command",
    agent: (i) => [
      {
        key: "command",
        value: splitCommand(need("command", "--agent-command", i.agentCommand)),
        comment: " runs in the task's workspace; writes its outcome to $HERMES_BRIDGE_RESULT (skills/SKILL.md)",
      },
    ],
    instead: () => ["# no login: the command agent needs none"],
  },
];

export function setupNamed(name: string): Setup {
  const s = SETUPS.find((x) => x.name === name || (name === "claude-code" && x.name === "claude"));
  if (!s) throw new ExitError(2, `init --agent: '${name}' is not a setup (one of: ${SETUPS.map((x) => x.name).join(", ")})`);
  return s;
}
