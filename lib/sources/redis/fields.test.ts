import { describe, expect, it } from "vitest";
import { decodeFields, toFieldArgs } from "./fields";

const b = (s: string) => Buffer.from(s, "utf8");

describe("decodeFields", () => {
  it("takes the first body field as the body and keeps a repeated one as a header", () => {
    const d = decodeFields(
      [b("body"), b("one"), b("body"), b("two"), b("tag"), b("a"), b("tag"), b("b"), b("tag"), Buffer.from([0xfe])],
      "body",
    );
    expect(d.body?.toString()).toBe("one");
    expect(d.headers).toEqual({ body: "two", tag: ["a", "b", { base64: "/g==" }] });
    expect(d.names).toEqual(["body", "body", "tag", "tag", "tag"]);
  });

  it("keeps a field named __proto__ as an own header", () => {
    const d = decodeFields([b("__proto__"), b("x"), b("body"), b("")], "body");
    expect(Object.keys(d.headers)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(d.headers)).toBe(Object.prototype);
    expect(d.body?.length).toBe(0);
  });

  it("has no body when the field is missing", () => {
    expect(decodeFields([b("payload"), b("x")], "body").body).toBeNull();
  });
});

describe("toFieldArgs", () => {
  it("is the inverse of decodeFields: same fields, same bytes, same order per name", () => {
    const pairs = [b("body"), Buffer.from([0xff, 0x00]), b("tag"), b("a"), b("sig"), Buffer.from([0x80]), b("tag"), b("b")];
    const d = decodeFields(pairs, "body");
    const args = toFieldArgs("body", d.body as Buffer, d.headers).map((a) => (typeof a === "string" ? b(a) : a));
    expect(args.map((a) => a.toString("hex"))).toEqual(
      [b("body"), Buffer.from([0xff, 0x00]), b("tag"), b("a"), b("tag"), b("b"), b("sig"), Buffer.from([0x80])].map((a) =>
        a.toString("hex"),
      ),
    );
  });

  it("writes values no Redis entry produces as text", () => {
    expect(toFieldArgs("body", b("x"), { n: 1, t: true, z: null, o: { a: 1 } })).toEqual([
      "body",
      b("x"),
      "n",
      "1",
      "t",
      "true",
      "z",
      "",
      "o",
      '{"a":1}',
    ]);
  });
});
