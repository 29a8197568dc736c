import { describe, expect, it } from "vitest";
import { addressBytes, reachedAddress, restrictedAddress } from "./address-class";

describe("addresses a sink or webhook may not reach by default", () => {
  it.each([
    ["127.0.0.1", "a loopback address"],
    ["127.255.0.9", "a loopback address"],
    ["10.1.2.3", "a private address (RFC 1918)"],
    ["172.16.0.1", "a private address (RFC 1918)"],
    ["172.31.255.255", "a private address (RFC 1918)"],
    ["192.168.1.1", "a private address (RFC 1918)"],
    ["169.254.169.254", "a link-local address (cloud metadata services answer there)"],
    ["0.0.0.0", 'an unspecified ("this network") address'],
    ["100.64.0.1", "a carrier-grade NAT address (RFC 6598)"],
    ["224.0.0.1", "a multicast address"],
    ["255.255.255.255", "a reserved address"],
    ["::1", "a loopback address"],
    ["::", "the unspecified address"],
    ["fd00::1", "a unique-local address (fc00::/7, private)"],
    ["fc12:3456::1", "a unique-local address (fc00::/7, private)"],
    ["fe80::1%eth0", "a link-local address (cloud metadata services answer there)"],
    ["ff02::1", "a multicast address"],
    ["::ffff:127.0.0.1", "a loopback address (IPv4 127.0.0.1 inside IPv6)"],
    ["::ffff:7f00:1", "a loopback address (IPv4 127.0.0.1 inside IPv6)"],
    ["::ffff:a9fe:a9fe", "a link-local address (cloud metadata services answer there) (IPv4 169.254.169.254 inside IPv6)"],
    ["64:ff9b::10.0.0.1", "a private address (RFC 1918) (IPv4 10.0.0.1 inside IPv6)"],
    ["2002:c0a8:0101::1", "a private address (RFC 1918) (IPv4 192.168.1.1 inside IPv6)"],
    ["::127.0.0.1", "a loopback address (IPv4 127.0.0.1 inside IPv6)"],
  ])("%s is %s", (address, why) => {
    expect(restrictedAddress(address)).toBe(why);
  });

  it.each([
    "93.184.215.14",
    "8.8.8.8",
    "172.32.0.1",
    "169.255.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "2002:0808:0808::1",
    "sink.example",
  ])("%s is not (names are judged by what they resolve to)", (address) => {
    expect(restrictedAddress(address)).toBeNull();
  });

  it("reads IPv6 in every spelling, and names the IPv4 address an allow-list would", () => {
    expect(addressBytes("1:2:3:4:5:6:7:8")).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]);
    expect(addressBytes("::ffff:1.2.3.4")?.slice(10)).toEqual([0xff, 0xff, 1, 2, 3, 4]);
    expect(addressBytes("not-an-address")).toBeNull();
    expect(reachedAddress("::ffff:7f00:1")).toBe("127.0.0.1");
    expect(reachedAddress("fe80::1%eth0")).toBe("fe80::1");
    expect(reachedAddress("10.0.0.1")).toBe("10.0.0.1");
  });
});
