// The egress proxy under attack (review of issue 50): ranges ipaddr.js calls unicast that are some host's
// own; a path that climbs out of the API's base; what a refusal says, and the advice it gives only for a
// public name; every request to the API on the books (requests, bytes, the tokens its answer reports).
import { afterEach, describe, expect, it } from "vitest";
import { rangeOf } from "../../src/egress/address.js";
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
