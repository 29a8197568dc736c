import { isIP } from "node:net";

// Which addresses a sink or webhook may not reach unless an operator allows them: those that lead into the
// server's own machine or network rather than to a service on the internet — loopback, private (RFC 1918),
// link-local (169.254.169.254 is the cloud metadata service), unique-local IPv6, unspecified, carrier-grade NAT,
// multicast and reserved. An IPv6 address that carries an IPv4 one (::ffff:127.0.0.1, NAT64 64:ff9b::/96, 6to4
// 2002::/16, the old ::a.b.c.d) is judged by the IPv4 address it reaches. Pure.

interface Block {
  /** network bytes, 4 (IPv4) or 16 (IPv6) */
  net: number[];
  bits: number;
  what: string;
}

const v4 = (a: number, b: number, c: number, d: number, bits: number, what: string): Block => ({ net: [a, b, c, d], bits, what });
const v6 = (first: number[], bits: number, what: string): Block => ({
  net: [...first, ...Array<number>(16 - first.length).fill(0)],
  bits,
  what,
});

const LOOPBACK = "a loopback address";
const LINK_LOCAL = "a link-local address (cloud metadata services answer there)";
const RESERVED = "a reserved address";

const V4_BLOCKS: Block[] = [
  v4(0, 0, 0, 0, 8, 'an unspecified ("this network") address'),
  v4(10, 0, 0, 0, 8, "a private address (RFC 1918)"),
  v4(100, 64, 0, 0, 10, "a carrier-grade NAT address (RFC 6598)"),
  v4(127, 0, 0, 0, 8, LOOPBACK),
  v4(169, 254, 0, 0, 16, LINK_LOCAL),
  v4(172, 16, 0, 0, 12, "a private address (RFC 1918)"),
  v4(192, 0, 0, 0, 24, RESERVED),
  v4(192, 168, 0, 0, 16, "a private address (RFC 1918)"),
  v4(198, 18, 0, 0, 15, RESERVED),
  v4(224, 0, 0, 0, 4, "a multicast address"),
  v4(240, 0, 0, 0, 4, RESERVED),
];

const V6_BLOCKS: Block[] = [
  v6([], 128, "the unspecified address"),
  v6([...Array<number>(15).fill(0), 1], 128, LOOPBACK),
  v6([0xfc], 7, "a unique-local address (fc00::/7, private)"),
  v6([0xfe, 0x80], 10, LINK_LOCAL),
  v6([0xfe, 0xc0], 10, "a site-local address (private)"),
  v6([0xff], 8, "a multicast address"),
];

function inBlock(bytes: number[], b: Block): boolean {
  if (bytes.length !== b.net.length) return false;
  for (let bit = 0; bit < b.bits; bit += 8) {
    const left = Math.min(8, b.bits - bit);
    const mask = (0xff << (8 - left)) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((b.net[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

/** An IPv4 or IPv6 address (no brackets; a zone `%eth0` is ignored) as bytes; null when it is not one. */
export function addressBytes(address: string): number[] | null {
  const plain = address.replace(/%.*$/, "");
  const family = isIP(plain);
  if (family === 4) return plain.split(".").map(Number);
  if (family !== 6) return null;
  let text = plain;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail.push(...(dotted[1] as string).split(".").map(Number));
    text = `${text.slice(0, -(dotted[1] as string).length)}0:0`; // two groups' room, replaced below
  }
  const [head = "", rest] = text.split("::");
  const groups = (s: string) => (s === "" ? [] : s.split(":").map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const all = rest === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = all.flatMap((g) => [(g >> 8) & 0xff, g & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes.length === 16 ? bytes : null;
}

/** The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4), or null. */
function embeddedV4(b: number[]): number[] | null {
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12); // ::ffff:a.b.c.d
  if (zeros(0, 12) && !zeros(12, 14)) return b.slice(12); // ::a.b.c.d (deprecated "compatible"), not ::1 / ::
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return b.slice(12); // 64:ff9b::/96
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6); // 2002:aabb:ccdd::/16
  return null;
}

/**
 * Why `address` is one a sink or webhook may not reach by default ("a loopback address"), or null for an address
 * on the internet. Something that is not an IP address is null: names are judged by what they resolve to.
 */
export function restrictedAddress(address: string): string | null {
  const bytes = addressBytes(address);
  if (!bytes) return null;
  if (bytes.length === 4) return V4_BLOCKS.find((b) => inBlock(bytes, b))?.what ?? null;
  const carried = embeddedV4(bytes);
  if (carried) {
    const why = V4_BLOCKS.find((b) => inBlock(carried, b))?.what;
    return why ? `${why} (IPv4 ${carried.join(".")} inside IPv6)` : null;
  }
  return V6_BLOCKS.find((b) => inBlock(bytes, b))?.what ?? null;
}

/** `::ffff:10.0.0.1` → `10.0.0.1`: the IPv4 address an allow-list entry would name. Others unchanged. */
export function reachedAddress(address: string): string {
  const bytes = addressBytes(address);
  if (!bytes || bytes.length === 4) return address.replace(/%.*$/, "");
  const carried = embeddedV4(bytes);
  return carried ? carried.join(".") : address.replace(/%.*$/, "");
}
