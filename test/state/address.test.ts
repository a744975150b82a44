// dask's get_address_host, and the allocation-free comparison ensureCommunicating uses.
import { describe, expect, it } from "vitest";
import { addressHasHost, addressHost } from "../../src/state/address.js";

describe("addressHost / addressHasHost", () => {
  it.each([
    ["tcp://10.0.0.1:8000", "10.0.0.1"],
    ["tcp://[::1]:8000", "::1"],
    ["10.0.0.1:8000", "10.0.0.1"],
    ["10.0.0.1", "10.0.0.1"],
    ["tcp://host", "host"],
    ["ucx://a:b:c", "a:b:c"],
    ["tls://h.example.com:1", "h.example.com"],
    ["a://b://c:1", "b://c:1"], // two colons left: not a port
    ["tcp://[::1", "[::1"],
    ["tcp://:80", ""],
    ["", ""],
  ])("%j → %j", (address, host) => {
    expect(addressHost(address)).toBe(host);
    expect(addressHasHost(address, host)).toBe(true);
    expect(addressHasHost(address, `${host}x`)).toBe(false);
    expect(addressHasHost(address, host.slice(1))).toBe(host.length === 0);
  });
});
