// Tool-call reassembly across the servers' quirks (agent-cli-contracts.md §3.2–3.3).
import { describe, expect, it } from "vitest";
import { TurnAssembler } from "../../src/agents/local-llm/assemble.js";

const delta = (d: unknown, finish: string | null = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] });

describe("TurnAssembler", () => {
  it("OpenAI shape: index, id and name first, argument fragments after", () => {
    const t = new TurnAssembler();
    t.push(delta({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "task_heartbeat", arguments: "" } }] }));
    t.push(delta({ tool_calls: [{ index: 0, function: { arguments: '{"note":' } }] }));
    t.push(delta({ tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }, "tool_calls"));
    t.push({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2 } });
    expect(t.done()).toEqual({
      content: "",
      toolCalls: [{ id: "call_a", name: "task_heartbeat", arguments: '{"note":"x"}' }],
      finishReason: "tool_calls",
      usage: { input: 5, output: 2 },
    });
  });
  it("vLLM: later deltas with an empty id do not start a new call", () => {
    const t = new TurnAssembler();
    t.push(delta({ tool_calls: [{ index: 0, id: "chatcmpl-tool-1", function: { name: "read_file", arguments: '{"pa' } }] }));
    t.push(delta({ tool_calls: [{ index: 0, id: "", function: { arguments: 'th":"a"}' } }] }));
    expect(t.done().toolCalls).toEqual([{ id: "chatcmpl-tool-1", name: "read_file", arguments: '{"path":"a"}' }]);
  });
  it("Ollama: no index, object arguments, finish_reason stop", () => {
    const t = new TurnAssembler();
    t.push(delta({ tool_calls: [{ id: "x1", function: { name: "list_dir", arguments: { path: "." } } }] }, "stop"));
    t.push(delta({ tool_calls: [{ id: "x2", function: { name: "read_file", arguments: { path: "a" } } }] }));
    expect(t.done().toolCalls).toEqual([
      { id: "x1", name: "list_dir", arguments: '{"path":"."}' },
      { id: "x2", name: "read_file", arguments: '{"path":"a"}' },
    ]);
  });
  it("proxies that put every parallel call at index 0 still give two calls; missing ids are made up", () => {
    const t = new TurnAssembler();
    t.push(delta({ tool_calls: [{ index: 0, function: { name: "list_dir", arguments: "{}" } }] }));
    t.push(delta({ tool_calls: [{ index: 0, function: { name: "read_file", arguments: '{"path":"b"}' } }] }));
    expect(t.done().toolCalls).toEqual([
      { id: "call_0_list_dir", name: "list_dir", arguments: "{}" },
      { id: "call_1_read_file", name: "read_file", arguments: '{"path":"b"}' },
    ]);
  });
  it("text and null choices (vLLM usage chunk) are fine", () => {
    const t = new TurnAssembler();
    t.push(delta({ content: "Hel" }));
    t.push(delta({ content: "lo" }, "stop"));
    t.push({ choices: null, usage: { prompt_tokens: 1, completion_tokens: 1 } });
    expect(t.done()).toMatchObject({ content: "Hello", toolCalls: [], finishReason: "stop" });
  });
});
