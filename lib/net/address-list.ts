import { BlockList, isIP } from "node:net";

// Lists of addresses and CIDR blocks an operator writes in the environment (REDRIVE_TRUSTED_PROXIES,
// REDRIVE_OUTBOUND_ALLOW_PRIVATE): `10.0.0.1, 10.1.0.0/16, fd00::/8`.

/** Parses the list; throws naming the entry that is neither an address nor a CIDR block. */
export function parseAddressList(spec: string | undefined): { entries: string[]; list: BlockList } {
  const list = new BlockList();
  const entries = (spec ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address = "", bits, extra] = entry.split("/");
    const family = isIP(address);
    const prefix = bits === undefined ? null : Number(bits);
    const max = family === 6 ? 128 : 32;
    if (family === 0 || extra !== undefined || (prefix !== null && (!/^\d+$/.test(bits ?? "") || prefix > max))) {
      throw new Error(`"${entry}" is not an IP address or CIDR block`);
    }
    const type = family === 6 ? "ipv6" : "ipv4";
    if (prefix === null) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  }
  return { entries, list };
}

/** Whether `address` (an IP address, no brackets) is in `list`. */
export function inAddressList(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 6 ? "ipv6" : "ipv4");
}
