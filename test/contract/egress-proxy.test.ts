// The egress proxy itself (egress/proxy.ts) over a real unix socket, with a resolver standing in for DNS
// (the boundary): CONNECT and absolute-URI requests are decided on what the client asked for, never a Host
// header; wildcards, ports, deny wins; a name that resolves to loopback or a private or link-local address
// is refused unless an entry names that host:port; refusals are counted, allowed bytes summed; the API
// route puts the seat's key where the placeholder was, toward its upstream only.
import { createServer, type Server } from "node:http";
import { mkdtempSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AllowList, parseHostRule } from "../../src/egress/allow.js";
import { EgressProxy, MAX_CONNECTIONS } from "../../src/egress/proxy.js";
import { type Closers, fakeResolver as fake, get, proxy as proxyOn, tunnel, upstream as upstreamOn } from "../helpers/egress-proxy.js";

const closers: Closers = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

const upstream = () => upstreamOn(closers);
const proxy = (allow: string[], o: Parameters<typeof proxyOn>[2] = {}) => proxyOn(closers, allow, o);

describe("the egress proxy", () => {
  it("tunnels an allowed host, refuses one that is not on the list (403 blocked-by-allowlist), and counts both", async () => {
    const up = await upstream();
    // (the allowed host is the test's own stand-in, named by host:port: no traffic leaves the machine)
    const { p, socket } = await proxy([`api.example.test:${up.port}`], { resolver: fake({ "api.example.test": ["127.0.0.1"] }) });
    expect(await tunnel(socket, `api.example.test:${up.port}`)).toMatch(/^HTTP\/1\.1 200/);
    expect(await tunnel(socket, "evil.example.test:443")).toMatch(
      /^HTTP\/1\.1 403 .*\r\nX-Proxy-Error: blocked-by-allowlist[\s\S]*not on the seat's allow-list/,
    );
    expect(await tunnel(socket, "evil.example.test:443")).toMatch(/403/);
    expect(p.counts().blocked).toEqual([{ host: "evil.example.test", port: 443, count: 2, why: "not on the seat's allow-list", advice: "evil.example.test" }]);
  });

  it("a name resolving to loopback, a private or a metadata address is refused after resolution; only an exact host:port entry opens one", async () => {
    const up = await upstream();
    const resolver = fake({
      "rebind.example.test": ["127.0.0.1"],
      "intranet.example.test": ["10.0.0.5"],
      "meta.example.test": ["169.254.169.254"],
      "both.example.test": ["93.184.216.34", "192.168.1.1"],
      "local-llm.test": ["127.0.0.1"],
    });
    const { socket } = await proxy(["*.example.test", `local-llm.test:${up.port}`], { resolver });
    for (const host of ["rebind", "intranet", "meta", "both"])
      expect(await tunnel(socket, `${host}.example.test:443`)).toMatch(/403[\s\S]*not a public address/);
    // the explicit entry reaches the loopback stand-in (a local LLM's baseUrl)
    expect(await tunnel(socket, `local-llm.test:${up.port}`)).toMatch(/^HTTP\/1\.1 200/);
    // an IP literal is an address like any other
    expect(await tunnel(socket, "127.0.0.1:22")).toMatch(/403/);
  });

  it("decides on the request's URL, never its Host header; deny wins over allow", async () => {
    const up = await upstream();
    const { socket } = await proxy([`127.0.0.1:${up.port}`, "*.example.test"], {
      deny: ["bad.example.test"],
      resolver: fake({ "bad.example.test": ["93.184.216.34"] }),
    });
    const ok = await get(socket, `http://127.0.0.1:${up.port}/x`, { host: "evil.example.test" });
    expect(ok).toEqual({ status: 200, body: "upstream says hi" });
    expect(up.seen[0]?.headers.host).toBe(`127.0.0.1:${up.port}`);
    const other = await get(socket, "http://127.0.0.1:9/x", { host: `127.0.0.1:${up.port}` });
    expect(other.status).toBe(403);
    expect((await tunnel(socket, "bad.example.test:443")).split("\r\n")[0]).toContain("403");
  });

  it("the API route puts the seat's key in place of the placeholder, toward its upstream only", async () => {
    const up = await upstream();
    const { socket } = await proxy([], {
      routes: [{ name: "anthropic", upstream: `http://127.0.0.1:${up.port}/base`, secrets: new Map([["hkb-placeholder-1", "sk-real-key"]]) }],
    });
    const r = await get(socket, "/hkb-api/anthropic/v1/messages", { "x-api-key": "hkb-placeholder-1", authorization: "Bearer hkb-placeholder-1" });
    expect(r.status).toBe(200);
    expect(up.seen[0]).toMatchObject({ url: "/base/v1/messages", headers: { "x-api-key": "sk-real-key", authorization: "Bearer sk-real-key" } });
    // the same, asked in absolute form at the relay's own address (a client that proxies loopback)
    await get(socket, "http://127.0.0.1:3128/hkb-api/anthropic/v1/x", { "x-api-key": "hkb-placeholder-1" });
    expect(up.seen[1]?.headers["x-api-key"]).toBe("sk-real-key");
    expect((await get(socket, "/hkb-api/other/v1")).status).toBe(404);
  });
});

describe("the egress proxy under attack (review of issue 37)", () => {
  it("the key goes only into the key's own header, whole; the API's answer never carries it back (an API quoting a header, across chunks)", async () => {
    const key = "sk-ant-api03-REAL-SEAT-KEY-0123456789";
    const seen: Record<string, unknown>[] = [];
    const s: Server = createServer((req, res) => {
      seen.push(req.headers);
      // an API that quotes what it got — the key split over two writes, and in a header
      res.setHeader("x-echo", String(req.headers["x-api-key"]));
      res.write(`Unexpected value(s) \`${String(req.headers["x-api-key"]).slice(0, 10)}`);
      setTimeout(() => res.end(`${String(req.headers["x-api-key"]).slice(10)}\` for the header`), 20);
    });
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
    closers.push(() => new Promise((r) => s.close(() => r(null))));
    const port = (s.address() as { port: number }).port;
    const ph = "hkb-placeholder-anthropic_api_key-abc";
    const { socket } = await proxy([], { routes: [{ name: "anthropic", upstream: `http://127.0.0.1:${port}`, secrets: new Map([[ph, key]]) }] });
    const ok = await get(socket, "/hkb-api/anthropic/v1/messages", { "x-api-key": ph, "accept-encoding": "gzip" });
    expect(seen[0]?.["x-api-key"]).toBe(key);
    expect(seen[0]?.["accept-encoding"]).toBeUndefined();
    expect(ok.body).not.toContain(key);
    expect(ok.body).toBe(`Unexpected value(s) \`${ph}\` for the header`);
    // the placeholder anywhere but the key's own header, or not whole: refused, never swapped
    const bad: Record<string, string>[] = [{ "anthropic-beta": ph }, { "x-api-key": `${ph}x` }, { authorization: `Basic ${ph}` }];
    for (const headers of bad) {
      const r = await get(socket, "/hkb-api/anthropic/v1/messages", headers);
      expect(r.status).toBe(400);
    }
    expect(seen).toHaveLength(1);
  });

  it('a key too short to be one (a test\'s "k") is put in place but never masked in answers, which it would corrupt', async () => {
    const s: Server = createServer((_req, res) => res.end("kanban_complete ok"));
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
    closers.push(() => new Promise((r) => s.close(() => r(null))));
    const port = (s.address() as { port: number }).port;
    const ph = "hkb-placeholder-mock_key-abc";
    const { socket } = await proxy([], { routes: [{ name: "openai", upstream: `http://127.0.0.1:${port}`, secrets: new Map([[ph, "k"]]) }] });
    const r = await get(socket, "/hkb-api/openai/v1/responses", { authorization: `Bearer ${ph}` });
    expect(r.body).toBe("kanban_complete ok");
  });

  it("a name that is no host name is answered 400, never counted; refusals are kept for 50 hosts, the rest counted together, reported once each", async () => {
    const first: string[] = [];
    const p = new EgressProxy({ allow: new AllowList([]), routes: [], onBlocked: (h) => first.push(h) });
    const socket = join(mkdtempSync(join(tmpdir(), "hkb-egress-")), "s");
    await p.listen(socket);
    closers.push(() => p.close());
    expect((await tunnel(socket, `${"a".repeat(300)}:443`)).split("\r\n")[0]).toContain("400");
    expect((await tunnel(socket, "bad%name:443")).split("\r\n")[0]).toContain("400");
    for (let i = 0; i < 60; i += 1) await tunnel(socket, `h${i}.example.test:443`);
    await tunnel(socket, "h0.example.test:443");
    const c = p.counts();
    expect(c.blocked).toHaveLength(50);
    expect(c.blocked[0]).toMatchObject({ host: "h0.example.test", count: 2 });
    expect(c.blockedOther).toBe(10);
    expect(first).toHaveLength(50);
  });

  it("an allowed host that cannot be resolved or reached is counted as failed, with why", async () => {
    const { p, socket } = await proxy(["gone.example.test", "127.0.0.1:1"], { resolver: fake({ "127.0.0.1": ["127.0.0.1"] }) });
    expect((await tunnel(socket, "gone.example.test:443")).split("\r\n")[0]).toContain("502");
    expect((await tunnel(socket, "127.0.0.1:1")).split("\r\n")[0]).toContain("502");
    expect(p.counts().failed).toEqual([
      expect.objectContaining({ host: "gone.example.test", port: 443, why: expect.stringMatching(/cannot resolve/) }),
      expect.objectContaining({ host: "127.0.0.1", port: 1, why: expect.stringMatching(/could not reach .*ECONNREFUSED/) }),
    ]);
  });

  it(`holds at most ${MAX_CONNECTIONS} connections of a run at once: a flood cannot drain the bridge's descriptors`, async () => {
    const { socket } = await proxy([]);
    const open: ReturnType<typeof connect>[] = [];
    closers.push(async () => {
      for (const c of open) c.destroy();
    });
    // The ones beyond the cap are closed by the proxy at once (a proxy without the cap closes none: the test times out).
    const closedEarly = await new Promise<number>((resolve) => {
      let closed = 0;
      for (let i = 0; i < MAX_CONNECTIONS + 20; i += 1) {
        const c = connect(socket);
        open.push(c);
        c.on("error", () => undefined);
        c.on("close", () => {
          closed += 1;
          if (closed === 20) resolve(closed);
        });
      }
    });
    expect(closedEarly).toBe(20);
    expect(open.filter((c) => !c.destroyed && c.readyState === "open").length).toBeLessThanOrEqual(MAX_CONNECTIONS);
  });
});

describe("allow-list entries", () => {
  it("hosts, wildcards, ports and IPv6 in brackets; a bad one names itself", () => {
    const a = new AllowList(["github.com", "*.npmjs.org", "127.0.0.1:8080", "[::1]:9000"].map((e, i) => parseHostRule(e, `a.${i}`)));
    expect(a.decide("github.com", 443)).toMatchObject({ allowed: true, explicit: false });
    expect(a.decide("github.com", 22).allowed).toBe(false);
    expect(a.decide("registry.npmjs.org", 443).allowed).toBe(true);
    expect(a.decide("npmjs.org", 443).allowed).toBe(false);
    expect(a.decide("127.0.0.1", 8080)).toMatchObject({ allowed: true, explicit: true });
    expect(a.decide("::1", 9000)).toMatchObject({ allowed: true, explicit: true });
    expect(() => parseHostRule("exa mple.com", "x")).toThrow(/not a host name/);
    expect(() => parseHostRule("host:70000", "x")).toThrow(/not 1–65535/);
  });
});
