import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { NOT_UTF8_LINE, readLines, type InputLine } from "./lines";

async function all(...chunks: (string | Buffer)[]): Promise<InputLine[]> {
  const out: InputLine[] = [];
  for await (const line of readLines(Readable.from(chunks.map((c) => (typeof c === "string" ? Buffer.from(c) : c)))).lines) out.push(line);
  return out;
}

const texts = async (...chunks: (string | Buffer)[]) => (await all(...chunks)).map((l) => l.text);

describe("readLines", () => {
  it("drops a UTF-8 byte order mark before the first line only, and CR before LF", async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(await texts(Buffer.concat([bom, Buffer.from('{"a":1}\r\n'), bom, Buffer.from('{"b":2}\n')]))).toEqual([
      '{"a":1}',
      '\uFEFF{"b":2}',
    ]);
    expect(await texts('{"a":1}\n\n{"b":2}')).toEqual(['{"a":1}', "", '{"b":2}']);
  });

  it("ends a line at LF only: a lone CR is JSON whitespace inside the line (readline split there)", async () => {
    expect(await texts('{"event_id":"e1",\r"device_id":"d1"}\n{"b":2}\r\n')).toEqual(['{"event_id":"e1",\r"device_id":"d1"}', '{"b":2}']);
  });

  it("makes a line that is not UTF-8 an error of its own, without touching the lines around it", async () => {
    const lines = await all(Buffer.concat([Buffer.from('{"a":1}\n{"event_id":"e'), Buffer.from([0xff]), Buffer.from('1"}\n{"b":2}')]));
    expect(lines.map((l) => l.error)).toEqual([null, NOT_UTF8_LINE, null]);
    expect(lines[1]?.text).toBe('{"event_id":"e\uFFFD1"}');
  });

  it("joins a line and a multi-byte character split across chunks", async () => {
    const e = Buffer.from("é");
    expect(await all(Buffer.from('{"x":"'), e.subarray(0, 1), Buffer.concat([e.subarray(1), Buffer.from('"}\n')]))).toEqual([
      { text: '{"x":"é"}', error: null },
    ]);
  });
});
