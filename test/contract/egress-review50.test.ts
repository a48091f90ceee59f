// The egress proxy under attack (review of issue 50): ranges ipaddr.js calls unicast that are some host's
// own; a path that climbs out of the API's base; what a refusal says, and the advice it gives only for a
// public name; every request to the API on the books (requests, bytes, the tokens its answer reports).
import { afterEach, describe, expect, it } from "vitest";
import { rangeOf } from "../../src/egress/address.js";
import { AllowList, parseHostRule } from "../../src/egress/allow.js";
import type { EgressTrace } from "../../src/egress/proxy.js";
import { egressLine } from "../../src/run/close/close-text.js";
import { type Closers, fakeResolver, get, proxy, tunnel, upstream } from "../helpers/egress-proxy.js";

const closers: Closers = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

describe("addresses ipaddr.js calls unicast that are no public host", () => {
  it("IPv4-compatible IPv6 (::/96) and Azure's WireServer are refused after resolution like loopback", async () => {
    expect(rangeOf("::7f00:1")).toBe("ipv4Compatible");
    expect(rangeOf("::a9fe:a9fe")).toBe("ipv4Compatible");
    expect(rangeOf("168.63.129.16")).toBe("metadata");
    expect(rangeOf("::ffff:168.63.129.16")).toBe("metadata");
    // neighbours stay public
    expect(rangeOf("168.63.129.17")).toBe("public");
    expect(rangeOf("2606:4700::1111")).toBe("public");
    const resolver = fakeResolver({ "v4compat.example.test": ["::7f00:1"], "wire.example.test": ["168.63.129.16"], "ok.example.test": ["93.184.216.34"] });
    const { socket } = await proxy(closers, ["*.example.test"], { resolver });
    expect(await tunnel(socket, "v4compat.example.test:443")).toMatch(/403[\s\S]*::7f00:1 \(ipv4Compatible\): not a public address/);
    expect(await tunnel(socket, "wire.example.test:443")).toMatch(/403[\s\S]*168\.63\.129\.16 \(metadata\): not a public address/);
  });
});

describe("the API route's path", () => {
  it("a dot segment, %2e, an empty segment or an encoded slash after /hkb-api/<name>/ is refused, never forwarded to the API's base", async () => {
    const up = await upstream(closers);
    const { socket } = await proxy(closers, [], {
      routes: [
        { name: "anthropic", upstream: `http://127.0.0.1:${up.port}/gateway/anthropic`, secrets: new Map([["hkb-placeholder-1", "sk-real-key-0123456789"]]) },
      ],
    });
    const key = { "x-api-key": "hkb-placeholder-1" };
    for (const tail of [
      "/../../admin/keys",
      "/v1/../../../admin",
      "/%2e%2e/admin",
      "/.%2E/admin",
      "//admin",
      "/v1/%2fadmin",
      "/v1/..",
      "/./v1/messages",
      "/v1\\..\\admin",
      // a fragment is no part of a request's target: what follows it reaches an upstream that may clean it
      "/v1/x#/../../../admin",
      // a path parameter on a dot segment (Tomcat, Spring's gateways: `..;` is `..`)
      "/v1/..;/../admin",
      "/v1/.;x/admin",
      // an encoded percent: a gateway that decodes once hands `%2e%2e` to one that decodes again
      "/v1/%252e%252e/admin",
    ]) {
      const r = await get(socket, `/hkb-api/anthropic${tail}`, key);
      expect(r.status, tail).toBe(400);
      expect(r.body, tail).toMatch(/refused: the path after \/hkb-api\/anthropic holds/);
      // …and in absolute form at the relay's own address (URL() would have resolved the dots away)
      expect((await get(socket, `http://127.0.0.1:3128/hkb-api/anthropic${tail}`, key)).status, tail).toBe(400);
    }
    expect(up.seen).toEqual([]);
    // a plain path, dots inside a name and a query with dots pass
    expect((await get(socket, "/hkb-api/anthropic/v1/messages?beta=a..b", key)).status).toBe(200);
    expect((await get(socket, "/hkb-api/anthropic/v1/models/claude-3.5", key)).status).toBe(200);
    expect(up.seen.map((s) => s.url)).toEqual(["/gateway/anthropic/v1/messages?beta=a..b", "/gateway/anthropic/v1/models/claude-3.5"]);
  });
});

describe("what a refusal says (the advice to allow one only for a public name)", () => {
  it("names the host and why; suggests an allowHosts entry only for a public name on 443/80 — never loopback, private, link-local, metadata or an IP literal", async () => {
    const asked: string[] = [];
    const traces: EgressTrace[] = [];
    const firsts: { host: string; port: number; advice?: string | undefined; housekeeping?: boolean | undefined }[] = [];
    const resolver = fakeResolver({ "rebind.example.com": ["127.0.0.1"] }, asked);
    const allowList = new AllowList(
      [parseHostRule("rebind.example.com", "allow.0")],
      [parseHostRule("denied.example.com", "deny.0")],
      [parseHostRule("github.com", "the agent CLI's own housekeeping")],
    );
    const { p, socket } = await proxy(closers, [], {
      allowList,
      resolver,
      onTrace: (t) => traces.push(t),
      onBlocked: (host, port, _why, r) => firsts.push({ host, port, ...r }),
    });
    const targets = [
      "127.0.0.1:8080",
      "169.254.169.254:80",
      "[::1]:443",
      "localhost:443",
      "metadata.google.internal:80",
      "printer.local:443",
      "intranet:443",
      "127.0.0.1.nip.io:443",
      "10-0-0-5.sslip.io:443",
      "rebind.example.com:443",
      "denied.example.com:443",
      "public.example.com:8443",
      "github.com:443",
      "public.example.com:443",
    ];
    for (const t of targets) {
      const answer = await tunnel(socket, t);
      expect(answer, t).toMatch(/^HTTP\/1\.1 403/);
      // the refusal names the host:port it refused and why
      const host = t.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
      expect(answer, t).toContain(`blocked-by-allowlist: ${host}:${t.split(":").at(-1)} (`);
    }
    const blocked = p.counts().blocked;
    const advised = blocked.filter((b) => b.advice).map((b) => `${b.host}:${b.port} → ${b.advice}`);
    // the portless entry: it never opens a private address the name may resolve to
    expect(advised).toEqual(["public.example.com:443 → public.example.com"]);
    expect(blocked.find((b) => b.host === "rebind.example.com")?.why).toMatch(/resolves to 127\.0\.0\.1 \(loopback\): not a public address/);
    expect(blocked.find((b) => b.host === "denied.example.com")?.why).toBe("denied by deny.0");
    expect(blocked.find((b) => b.host === "github.com")).toMatchObject({
      housekeeping: true,
      why: "the agent CLI's own housekeeping: not needed for its work",
    });
    expect(firsts.filter((f) => f.advice)).toEqual([expect.objectContaining({ host: "public.example.com", port: 443, advice: "public.example.com" })]);
    // a host that is not allowed is never resolved; what was resolved is in the proxy's own log
    expect(asked).toEqual(["rebind.example.com"]);
    expect(traces).toEqual([{ what: "resolve", host: "rebind.example.com" }]);
    // the card's line: every refusal with why, the way through only for the public name, housekeeping apart
    const line = egressLine(p.counts());
    expect(line).toMatch(/^egress refused: 127\.0\.0\.1:8080 ×1 \(not on the seat's allow-list\);/);
    expect(line).toContain('— an entry in agent.isolation.allowHosts lets one through ("public.example.com")');
    expect(line).not.toMatch(/"(127\.0\.0\.1|169\.254\.169\.254|localhost|metadata\.google\.internal|10-0-0-5\.sslip\.io|rebind\.example\.com)[":]/);
    expect(line).toContain("the agent CLI's own housekeeping calls, refused (not needed): github.com:443 ×1");
    expect(line.split("\n")[0]).not.toContain("github.com");
  });
});

describe("the seat's key on the books (every request of the API route counted)", () => {
  it("requests, bytes and the tokens each answer reports — Anthropic and OpenAI, JSON and server-sent events (split anywhere), a cut answer as far as it went", async () => {
    const sse = (events: unknown[]) => events.map((e) => `event: x\ndata: ${JSON.stringify(e)}\n\n`).join("");
    const answers: Record<string, { type: string; body: string }> = {
      "/v1/messages-json": { type: "application/json", body: JSON.stringify({ usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 3 } }) },
      "/v1/messages-sse": {
        type: "text/event-stream",
        body: `${sse([
          { type: "message_start", message: { usage: { input_tokens: 100, output_tokens: 1, cache_creation_input_tokens: 7 } } },
          { type: "content_block_delta", delta: { text: "héllo wörld ✓" } },
          { type: "message_delta", usage: { output_tokens: 20 } },
        ])}`,
      },
      "/v1/chat/completions": { type: "application/json; charset=utf-8", body: JSON.stringify({ usage: { prompt_tokens: 7, completion_tokens: 3 } }) },
      "/v1/responses": {
        type: "text/event-stream",
        body: `${sse([
          { type: "response.created", response: { usage: null } },
          { type: "response.completed", response: { usage: { input_tokens: 50, output_tokens: 8, input_tokens_details: { cached_tokens: 4 } } } },
        ])}data: [DONE]\n\n`,
      },
      "/v1/plain": { type: "text/plain", body: "no usage here" },
    };
    const up = await upstream(closers, (req, res) => {
      req.resume();
      req.on("end", () => {
        const a = answers[req.url?.replace(/^\/base/, "") ?? ""];
        if (!a) return void res.writeHead(200, { "content-type": "application/json" }).end('{"data":[]}');
        res.writeHead(200, { "content-type": a.type });
        // split into 7-byte pieces: a usage line crosses chunk boundaries (and a multi-byte character with it)
        const b = Buffer.from(a.body);
        for (let i = 0; i < b.length; i += 7) res.write(b.subarray(i, i + 7));
        res.end();
      });
    });
    const uses: number[] = [];
    const { p, socket } = await proxy(closers, [], {
      routes: [{ name: "anthropic", upstream: `http://127.0.0.1:${up.port}/base`, secrets: new Map([["hkb-placeholder-1", "sk-real-key-0123456789"]]) }],
      onApiUse: (u) => uses.push(u.requests),
    });
    const key = { "x-api-key": "hkb-placeholder-1", "content-type": "application/json" };
    const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] });
    for (const path of Object.keys(answers)) expect((await get(socket, `/hkb-api/anthropic${path}`, key, { method: "POST", body })).status).toBe(200);
    // a GET of the models list reports no usage and is no unread answer
    await get(socket, "/hkb-api/anthropic/v1/models", key);
    const api = p.counts().api;
    expect(api).toMatchObject({
      requests: 6,
      tokens: { input: 10 + 100 + 7 + 50, output: 5 + 20 + 3 + 8, cacheRead: 3 + 4, cacheWrite: 7 },
      unread: 1,
    });
    expect(api?.bytesOut).toBe(5 * Buffer.byteLength(body));
    expect(api?.bytesIn).toBe(Object.values(answers).reduce((n, a) => n + Buffer.byteLength(a.body), 0) + '{"data":[]}'.length);
    expect(uses.at(-1)).toBe(6);
    // refusals and tunnels are not the API's: nothing else is counted there
    expect((await tunnel(socket, "elsewhere.example.com:443")).split("\r\n")[0]).toContain("403");
    expect(p.counts().api?.requests).toBe(6);
  });

  it("an answer cut half-way (the API drops it, or the client hangs up) counts what it reported before the cut", async () => {
    const up = await upstream(closers, (req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify({ type: "message_start", message: { usage: { input_tokens: 900, output_tokens: 1 } } })}\n\n`);
      setTimeout(() => res.destroy(), 50);
    });
    const { p, socket } = await proxy(closers, [], {
      routes: [{ name: "anthropic", upstream: `http://127.0.0.1:${up.port}`, secrets: new Map([["hkb-placeholder-1", "sk-real-key-0123456789"]]) }],
    });
    await get(socket, "/hkb-api/anthropic/v1/messages", { "x-api-key": "hkb-placeholder-1" }, { method: "POST", body: "{}" }).catch(() => null);
    await expect.poll(() => p.counts().api?.tokens.input).toBe(900);
    expect(p.counts().api?.requests).toBe(1);
  });
});
