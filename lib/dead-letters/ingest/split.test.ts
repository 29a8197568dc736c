import { describe, expect, it } from "vitest";
import {
  BLANK_LINE,
  decodeDeferred,
  DEFER_DECODE_BYTES,
  decodeUtf8,
  encodeShared,
  EMPTY_ELEMENT,
  NOT_UTF8,
  RECORD_TOO_LARGE,
  splitJson,
  splitNdjsonBytes,
  TRAILING_COMMA,
  UNCLOSED_ARRAY,
} from "./split";

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

async function* chunked(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

describe("splitJson", () => {
  const array = '[ {"a":1,"s":"x,]}"} , {"b":[1,2,{"c":"\\"}"}]},\n{"n":275.0} ]';

  it.each([1, 2, 3, 7, 1000])("splits array elements whatever the chunk size (%i)", async (size) => {
    const recs = await collect(splitJson(chunked(array, size)));
    expect(recs.map((r) => r.text)).toEqual(['{"a":1,"s":"x,]}"}', '{"b":[1,2,{"c":"\\"}"}]}', '{"n":275.0}']);
    expect(recs.map((r) => r.index)).toEqual([0, 1, 2]);
  });

  it("takes a single object, and concatenated objects, as records", async () => {
    expect((await collect(splitJson(chunked('{"a":{"b":1}}', 3)))).map((r) => r.text)).toEqual(['{"a":{"b":1}}']);
    expect((await collect(splitJson(chunked('{"a":1}\n{"b":2}\n', 4)))).map((r) => r.text)).toEqual(['{"a":1}', '{"b":2}']);
  });

  it("keeps a malformed element as its own record text", async () => {
    const recs = await collect(splitJson(chunked('[{"a":1}, nope, {"b":2}]', 5)));
    expect(recs.map((r) => r.text)).toEqual(['{"a":1}', "nope", '{"b":2}']);
  });

  it("reports an array the body cut off, keeping the whole elements before the cut", async () => {
    for (const size of [1, 4, 100]) {
      expect(await collect(splitJson(chunked('[{"a":1},', size)))).toEqual([
        { index: 0, text: '{"a":1}' },
        { index: 1, text: "", error: UNCLOSED_ARRAY },
      ]);
      expect(await collect(splitJson(chunked('[{"a":1}, {"kind":"sp', size)))).toEqual([
        { index: 0, text: '{"a":1}' },
        { index: 1, text: '{"kind":"sp', error: UNCLOSED_ARRAY },
      ]);
      expect(await collect(splitJson(chunked("[", size)))).toEqual([{ index: 0, text: "", error: UNCLOSED_ARRAY }]);
    }
  });

  it("reports empty elements, a trailing comma and anything after the closing ]", async () => {
    for (const size of [1, 3, 100]) {
      expect(await collect(splitJson(chunked('[{"a":1},,{"b":2}]', size)))).toEqual([
        { index: 0, text: '{"a":1}' },
        { index: 1, text: "", error: EMPTY_ELEMENT },
        { index: 2, text: '{"b":2}' },
      ]);
      expect(await collect(splitJson(chunked('[{"a":1},]', size)))).toEqual([
        { index: 0, text: '{"a":1}' },
        { index: 1, text: "", error: TRAILING_COMMA },
      ]);
      expect(await collect(splitJson(chunked('[{"a":1}]]', size)))).toEqual([
        { index: 0, text: '{"a":1}' },
        { index: 1, text: "]" },
      ]);
      expect(await collect(splitJson(chunked('[ , {"a":1}]', size)))).toEqual([
        { index: 0, text: "", error: EMPTY_ELEMENT },
        { index: 1, text: '{"a":1}' },
      ]);
    }
  });

  it("yields nothing for an empty array", async () => {
    expect(await collect(splitJson(chunked("  [ ]  ", 2)))).toEqual([]);
  });
});

describe("splitNdjsonBytes", () => {
  it("drops a UTF-8 byte order mark before the first line (Notepad, PowerShell)", async () => {
    const bytes = async function* () {
      yield new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"a":1}\n{"b":2}\n')]);
    };
    expect((await collect(splitNdjsonBytes(bytes()))).map((r) => r.text)).toEqual(['{"a":1}', '{"b":2}']);
  });

  it("splits lines, skips blanks (each record keeps its line number), handles CRLF and a missing final newline", async () => {
    const encoded = async function* () {
      for await (const text of chunked('{"a":1}\r\n\n{"b":2}\n{"c":3}', 3)) yield new TextEncoder().encode(text);
    };
    const recs = await collect(splitNdjsonBytes(encoded()));
    expect(recs).toEqual([
      { index: 0, line: 1, text: '{"a":1}' },
      { index: 1, line: 3, text: '{"b":2}' },
      { index: 2, line: 4, text: '{"c":3}' },
    ]);
  });
});

describe("splitNdjsonBytes", () => {
  async function* bytesOf(parts: (string | number[])[], size: number) {
    const all = parts.flatMap((p) => (typeof p === "string" ? [...new TextEncoder().encode(p)] : p));
    for (let i = 0; i < all.length; i += size) yield Uint8Array.from(all.slice(i, i + size));
  }

  it("splits lines with multi-byte characters across chunks", async () => {
    for (const size of [1, 2, 5, 1000]) {
      expect(await collect(splitNdjsonBytes(bytesOf(['{"a":"Zürich €"}\r\n\n  \n{"b":2}\n{"c":3}'], size)))).toEqual([
        { index: 0, line: 1, text: '{"a":"Zürich €"}' },
        { index: 1, line: 4, text: '{"b":2}' },
        { index: 2, line: 5, text: '{"c":3}' },
      ]);
    }
  });

  it("rejects a line that is not UTF-8 by itself, keeping the lines around it", async () => {
    // 0xE9 alone: "é" in Latin-1, not UTF-8
    const recs = await collect(splitNdjsonBytes(bytesOf(['{"a":1}\n{"s":"caf', [0xe9], '"}\n{"b":2}\n'], 3)));
    expect(recs).toEqual([
      { index: 0, line: 1, text: '{"a":1}' },
      { index: 1, line: 2, text: '{"s":"caf\ufffd"}', error: NOT_UTF8 },
      { index: 2, line: 3, text: '{"b":2}' },
    ]);
  });
});

describe("a long record crossing to a worker thread", () => {
  const long = `{"s":"${"é€".repeat(DEFER_DECODE_BYTES / 4)}"}`;

  async function* inChunks(bytes: Uint8Array, size: number) {
    for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
  }

  it("hands a long NDJSON line on as bytes in shared memory, decoded where it is normalized, whatever the chunking", async () => {
    const body = new TextEncoder().encode(`{"a":1}\n${long}\r\n${" ".repeat(DEFER_DECODE_BYTES)}\n{"b":2}`);
    for (const size of [1000, 64 * 1024, body.length]) {
      const recs = await collect(splitNdjsonBytes(inChunks(body, size)));
      expect(recs.map((r) => [r.index, r.text, r.bytes?.buffer instanceof SharedArrayBuffer])).toEqual([
        [0, '{"a":1}', false],
        [1, "", true],
        [2, "", true],
        [3, '{"b":2}', false],
      ]);
      expect(decodeDeferred(recs[1]!.bytes!)).toEqual({ text: long });
      expect(decodeDeferred(recs[2]!.bytes!)).toMatchObject({ error: BLANK_LINE });
    }
  });

  it("encodes a long text into shared memory without splitting a surrogate pair", async () => {
    // A pair straddles each 1 MiB slice boundary when the text is offset by one unit.
    const text = `x${"😀".repeat(600_000)}`;
    const bytes = await encodeShared(text);
    expect(bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(decodeDeferred(bytes)).toEqual({ text });
  });
});

describe("decodeUtf8", () => {
  it("refuses bytes that are not UTF-8 instead of replacing them", async () => {
    async function* parts() {
      yield Uint8Array.from([0x7b, 0xe9, 0x7d]);
    }
    await expect(collect(decodeUtf8(parts()))).rejects.toThrow(TypeError);
  });

  it("joins multi-byte characters split across chunks", async () => {
    const bytes = new TextEncoder().encode('{"s":"Zürich €"}');
    async function* parts() {
      for (let i = 0; i < bytes.length; i += 1) yield bytes.slice(i, i + 1);
    }
    expect((await collect(decodeUtf8(parts()))).join("")).toBe('{"s":"Zürich €"}');
  });
});

describe("a record larger than the limit", () => {
  const big = `{"kind":"afc","failure_reason":"${"A".repeat(100)}"}`;
  it("is rejected by itself in NDJSON, however it is chunked, and the records around it stand", async () => {
    const text = `{"a":1}\n${big}\n{"b":2}\n${big}`;
    for (const size of [7, 64, text.length]) {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(Buffer.from(text.slice(i, i + size)));
      const out = await collect(splitNdjsonBytes(gen(chunks), 50));
      expect(out, `chunks of ${size}`).toEqual([
        { index: 0, line: 1, text: '{"a":1}' },
        { index: 1, line: 2, text: "", error: RECORD_TOO_LARGE },
        { index: 2, line: 3, text: '{"b":2}' },
        { index: 3, line: 4, text: "", error: RECORD_TOO_LARGE },
      ]);
    }
  });

  it("is rejected by itself in a JSON array or a stream of values", async () => {
    for (const [body, expected] of [
      [
        `[{"a":1},${big},{"b":2}]`,
        [
          { index: 0, text: '{"a":1}' },
          { index: 1, text: "", error: RECORD_TOO_LARGE },
          { index: 2, text: '{"b":2}' },
        ],
      ],
      [
        `{"a":1} ${big} {"b":2}`,
        [
          { index: 0, text: '{"a":1}' },
          { index: 1, text: "", error: RECORD_TOO_LARGE },
          { index: 2, text: '{"b":2}' },
        ],
      ],
      [
        `[{"a":1},${big}`,
        [
          { index: 0, text: '{"a":1}' },
          { index: 1, text: "", error: RECORD_TOO_LARGE },
        ],
      ],
    ] as const) {
      for (const size of [5, 64]) {
        const chunks: string[] = [];
        for (let i = 0; i < body.length; i += size) chunks.push(body.slice(i, i + size));
        expect(await collect(splitJson(gen(chunks), 50)), `${body.slice(0, 12)} in chunks of ${size}`).toEqual(expected);
      }
    }
  });
});

async function* gen<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}
