/**
 * Just enough PNG decoding for a scripted model to look at a screenshot: 8-bit RGB or RGBA,
 * not interlaced (what Chromium writes). Pixels come back as RGBA.
 */
import { inflateSync } from "node:zlib";

export interface Image {
  width: number;
  height: number;
  /** RGBA, row after row. */
  pixels: Uint8Array;
}

export function decodePng(png: Buffer): Image {
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("ascii", offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const depth = body[8];
      const colour = body[9];
      if (depth !== 8 || (colour !== 2 && colour !== 6) || body[12] !== 0) {
        throw new Error(`unsupported PNG (depth ${depth}, colour type ${colour})`);
      }
      channels = colour === 6 ? 4 : 3;
    } else if (type === "IDAT") data.push(body);
    else if (type === "IEND") break;
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const out = new Uint8Array(width * height * 4);
  let previous = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? row[i - channels]! : 0;
      const b = previous[i]!;
      const c = i >= channels ? previous[i - channels]! : 0;
      const x = line[i]!;
      let v: number;
      if (filter === 0) v = x;
      else if (filter === 1) v = x + a;
      else if (filter === 2) v = x + b;
      else if (filter === 3) v = x + ((a + b) >> 1);
      else {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
      }
      row[i] = v & 0xff;
    }
    for (let px = 0; px < width; px++) {
      const o = (y * width + px) * 4;
      out[o] = row[px * channels]!;
      out[o + 1] = row[px * channels + 1]!;
      out[o + 2] = row[px * channels + 2]!;
      out[o + 3] = channels === 4 ? row[px * channels + 3]! : 255;
    }
    previous = row;
  }
  return { width, height, pixels: out };
}

/** The middle of the pixels of exactly this colour, or undefined when there are none. */
export function centreOf(
  image: Image,
  rgb: [number, number, number],
): { x: number; y: number } | undefined {
  let sx = 0;
  let sy = 0;
  let n = 0;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const o = (y * image.width + x) * 4;
      if (
        image.pixels[o] === rgb[0] &&
        image.pixels[o + 1] === rgb[1] &&
        image.pixels[o + 2] === rgb[2]
      ) {
        sx += x;
        sy += y;
        n++;
      }
    }
  }
  return n ? { x: sx / n, y: sy / n } : undefined;
}

/** The latest PNG a model request carries (base64, as a data: URL or a field), decoded. */
export function latestImageIn(body: unknown): Image | undefined {
  // Every PNG starts with the same eight bytes, "iVBORw0KGgo" in base64.
  const found = JSON.stringify(body).match(/iVBORw0KGgo[A-Za-z0-9+/=]+/g);
  const last = found?.at(-1);
  return last ? decodePng(Buffer.from(last, "base64")) : undefined;
}

/** The right-most pixel of exactly this colour on row `y` (a slider track's end). */
export function rightmostOnRow(
  image: Image,
  y: number,
  rgb: [number, number, number],
): { x: number; y: number } {
  let end = 0;
  const row = Math.round(y);
  for (let x = 0; x < image.width; x++) {
    const o = (row * image.width + x) * 4;
    if (
      image.pixels[o] === rgb[0] &&
      image.pixels[o + 1] === rgb[1] &&
      image.pixels[o + 2] === rgb[2]
    ) {
      end = x;
    }
  }
  return { x: end, y };
}
