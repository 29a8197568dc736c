import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readLines } from "./lines";

async function all(text: string | Buffer): Promise<string[]> {
  const out: string[] = [];
  for await (const line of readLines(Readable.from([text])).lines) out.push(line);
  return out;
}

describe("readLines", () => {
  it("drops a UTF-8 byte order mark before the first line only, and CR before LF", async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const text = Buffer.concat([bom, Buffer.from('{"a":1}\r\n'), bom, Buffer.from('{"b":2}\n')]);
    expect(await all(text)).toEqual(['{"a":1}', '\uFEFF{"b":2}']);
    expect(await all('{"a":1}\n\n{"b":2}')).toEqual(['{"a":1}', "", '{"b":2}']);
  });
});
