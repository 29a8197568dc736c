import { inflateSync } from "node:zlib";

// A tiny PNG decoder for asserting on what a map actually drew: headless Chromium's WebGL has no preserved
// drawing buffer, so gl.readPixels returns zeros, but an element screenshot is the composited page. Handles
// what Chromium writes: 8-bit RGB or RGBA, not interlaced.

export interface Image {
  width: number;
  height: number;
  /** RGBA, 4 bytes per pixel */
  data: Uint8Array;
}

export function decodePng(png: Buffer): Image {
  if (png.readUInt32BE(0) !== 0x89504e47) throw new Error("not a PNG");
  let offset = 8;
  let width = 0,
    height = 0,
    colorType = 0;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("latin1", offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const depth = body[8],
        interlace = body[12];
      colorType = body[9]!;
      if (depth !== 8 || interlace !== 0 || (colorType !== 2 && colorType !== 6))
        throw new Error(`unsupported PNG (depth ${depth}, colour ${colorType}, interlace ${interlace})`);
    } else if (type === "IDAT") idat.push(body);
    else if (type === "IEND") break;
    offset += 12 + length;
  }
  const bpp = colorType === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = new Uint8Array(width * height * 4);
  const prev = new Uint8Array(stride);
  const line = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? line[x - bpp]! : 0,
        b = prev[x]!,
        c = x >= bpp ? prev[x - bpp]! : 0;
      let v = src[x]!;
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c,
          pa = Math.abs(p - a),
          pb = Math.abs(p - b),
          pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      line[x] = v & 0xff;
    }
    for (let x = 0; x < width; x++) {
      out.set([line[x * bpp]!, line[x * bpp + 1]!, line[x * bpp + 2]!, bpp === 4 ? line[x * bpp + 3]! : 255], (y * width + x) * 4);
    }
    prev.set(line);
  }
  return { width, height, data: out };
}

/** Pixels within `tolerance` (per channel) of any of the colours ("#rrggbb"). */
export function countPixels(img: Image, colours: string[], tolerance = 40): number {
  const rgb = colours.map((c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)));
  let n = 0;
  for (let i = 0; i < img.data.length; i += 4) {
    const r = img.data[i]!,
      g = img.data[i + 1]!,
      b = img.data[i + 2]!;
    if (rgb.some(([cr, cg, cb]) => Math.abs(r - cr!) <= tolerance && Math.abs(g - cg!) <= tolerance && Math.abs(b - cb!) <= tolerance)) n++;
  }
  return n;
}

/** Pixels farther than `tolerance` from every one of the background colours: what was drawn on top. */
export function countForeground(img: Image, backgrounds: string[], tolerance = 12): number {
  return img.width * img.height - countPixels(img, backgrounds, tolerance);
}
