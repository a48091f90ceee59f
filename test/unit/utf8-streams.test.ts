// Multi-byte characters split across chunks stay whole: the line splitter (the local-LLM SSE client
// feeds it raw body chunks), the file tailer (adopted agents' output) and the SSE client end to end
// against a server that sends its body one byte at a time.
import { appendFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { streamChat } from "../../src/agents/local-llm/client.js";
import { LineSplitter } from "../../src/process/lines.js";
import { FileTailer } from "../../src/process/tail.js";
import { scratchDir } from "../helpers/tmp.js";

const TEXT = "完了しました ✅ — naïve 🚀";

/** Every way to cut the bytes of `s` in two. */
const cuts = (s: string) => {
  const b = Buffer.from(s);
  return Array.from({ length: b.length + 1 }, (_, i) => [b.subarray(0, i), b.subarray(i)] as const);
};

describe("UTF-8 across chunk boundaries", () => {
  it("LineSplitter.pushBytes keeps a character split at any byte whole", () => {
    for (const [a, b] of cuts(`${TEXT}\nnext`)) {
      const lines: string[] = [];
      const s = new LineSplitter((l) => lines.push(l));
      s.pushBytes(a);
      s.pushBytes(b);
      s.end();
      expect(lines).toEqual([TEXT, "next"]);
    }
  });

  it("FileTailer decodes a character whose bytes land in two polls", () => {
    for (const [a, b] of cuts(TEXT)) {
      const path = join(scratchDir("hkb-tail-"), "out.log");
      writeFileSync(path, a);
      let got = "";
      const t = new FileTailer(
        path,
        (x) => {
          got += x;
        },
        1 << 20,
      );
      t.poll();
      appendFileSync(path, b);
      t.poll();
      expect(got).toBe(TEXT);
    }
  });

  it("the SSE client assembles Japanese and emoji from a body sent one byte at a time", async () => {
    const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    const body = Buffer.from(`${chunk(TEXT.slice(0, 7))}${chunk(TEXT.slice(7))}data: [DONE]\n\n`);
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", async () => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.flushHeaders();
        for (const byte of body) {
          await new Promise<void>((r) => res.write(Buffer.from([byte]), () => setImmediate(r)));
        }
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const { port } = server.address() as AddressInfo;
      const turn = await streamChat({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        apiKey: undefined,
        body: { model: "m", messages: [] },
        signal: new AbortController().signal,
        idleTimeoutMs: 10_000,
      });
      expect(turn.content).toBe(TEXT);
    } finally {
      server.close();
    }
  });
});
