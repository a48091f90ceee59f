// Rebuilds streamed chat-completion deltas into one assistant turn (pure). Tool calls are gathered
// by index, falling back to id, then to "a delta with a name starts a new call"; argument fragments
// may be strings or objects (agent-cli-contracts.md §3.2, §3.3).

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface Turn {
  content: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
  usage: { input: number; output: number } | null;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});

export class TurnAssembler {
  private content = "";
  private calls: (ToolCall & { index: number | null })[] = [];
  private finish: string | null = null;
  private usage: Turn["usage"] = null;

  /** One `data:` payload (already JSON-parsed). */
  push(chunk: unknown): void {
    const c = obj(chunk);
    const u = obj(c.usage);
    if (typeof u.prompt_tokens === "number") this.usage = { input: u.prompt_tokens, output: typeof u.completion_tokens === "number" ? u.completion_tokens : 0 };
    const choices = Array.isArray(c.choices) ? c.choices : [];
    for (const ch of choices.map(obj)) {
      if (typeof ch.finish_reason === "string") this.finish = ch.finish_reason;
      const delta = obj(ch.delta ?? ch.message);
      if (typeof delta.content === "string") this.content += delta.content;
      const tcs = Array.isArray(delta.tool_calls) ? delta.tool_calls.map(obj) : [];
      for (const tc of tcs) this.addCall(tc);
    }
  }

  private addCall(tc: Json): void {
    const fn = obj(tc.function);
    const index = typeof tc.index === "number" ? tc.index : null;
    const id = typeof tc.id === "string" && tc.id !== "" ? tc.id : null;
    const name = typeof fn.name === "string" && fn.name !== "" ? fn.name : null;
    let target =
      index !== null
        ? this.calls.find((x) => x.index === index)
        : id !== null
          ? this.calls.find((x) => x.id === id)
          : name === null
            ? this.calls.at(-1)
            : undefined;
    // Proxies that put every parallel call at index 0 start a new call with a new name.
    if (target && name !== null && target.name !== "" && target.name !== name && (id === null || id !== target.id)) target = undefined;
    if (!target) {
      target = { index, id: id ?? "", name: "", arguments: "" };
      this.calls.push(target);
    }
    if (id !== null && target.id === "") target.id = id;
    if (name !== null && target.name === "") target.name = name;
    const args = fn.arguments;
    if (typeof args === "string") target.arguments += args;
    else if (args && typeof args === "object") target.arguments += JSON.stringify(args);
  }

  done(): Turn {
    return {
      content: this.content,
      toolCalls: this.calls.filter((c) => c.name !== "").map((c, i) => ({ id: c.id || `call_${i}_${c.name}`, name: c.name, arguments: c.arguments || "{}" })),
      finishReason: this.finish,
      usage: this.usage,
    };
  }
}
