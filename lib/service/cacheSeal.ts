/**
 * Server cache entries bound to the service: each carries an HMAC-SHA256, under a secret of the
 * service, over its key, when it was made and its value's text. An entry someone else wrote (no
 * MAC, a wrong one, or the MAC of another key moved under this one) does not open: a miss.
 *
 * An entry is one header line of JSON, then the value's JSON text exactly as it was MACed; the
 * value is parsed only once its MAC matched.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { z } from "zod";

const VERSION = 2;
const HeaderSchema = z.strictObject({
  v: z.literal(VERSION),
  key: z.string(),
  createdAt: z.number().int().nonnegative(),
  mac: z.string().regex(/^[0-9a-f]{64}$/),
});

/** What opening an entry found: its value, an entry too old to serve, or nothing of ours. */
export type Opened = { value: unknown } | "stale" | undefined;

export class CacheSeal {
  constructor(private readonly secret: Buffer) {}

  /** The entry's text; undefined for a value JSON cannot write (it is simply not kept). */
  seal(key: string, value: unknown, now: number): string | undefined {
    const body = JSON.stringify(value);
    if (body === undefined) return undefined;
    const header = { v: VERSION, key, createdAt: now, mac: this.mac(key, now, body) };
    // JSON.stringify never writes a raw line break: the first one ends the header.
    return `${JSON.stringify(header)}\n${body}`;
  }

  /** The value of an entry this service wrote under `key`, unless older than `maxAgeMs`. */
  open(key: string, text: string, now: number, maxAgeMs: number): Opened {
    const cut = text.indexOf("\n");
    if (cut === -1) return undefined;
    let header: z.infer<typeof HeaderSchema>;
    try {
      header = HeaderSchema.parse(JSON.parse(text.slice(0, cut)));
    } catch {
      return undefined;
    }
    const body = text.slice(cut + 1);
    // The MAC is checked against the key asked for, never the one the header claims.
    const expected = Buffer.from(this.mac(key, header.createdAt, body), "hex");
    if (!timingSafeEqual(expected, Buffer.from(header.mac, "hex"))) return undefined;
    if (now - header.createdAt >= maxAgeMs) return "stale";
    try {
      return { value: JSON.parse(body) as unknown };
    } catch {
      return undefined;
    }
  }

  private mac(key: string, createdAt: number, body: string): string {
    // NUL never occurs in a key or a number: the three parts cannot be shifted into each other.
    return createHmac("sha256", this.secret)
      .update(`wayfarer-server-cache-v${VERSION}\0${key}\0${createdAt}\0`)
      .update(body)
      .digest("hex");
  }
}

const SecretSchema = z.string().regex(/^[0-9a-f]{64}$/);

/** A new secret of the service, as stored: 32 random bytes in hex. */
export const newSecret = () => randomBytes(32).toString("hex");

/** A stored secret, or undefined when it is not one of ours (missing, cut short, garbage). */
export const secretOf = (text: string | null | undefined): Buffer | undefined => {
  const parsed = SecretSchema.safeParse(text?.trim());
  return parsed.success ? Buffer.from(parsed.data, "hex") : undefined;
};

/**
 * The folder store's secret: read from `file`, or made once (mode 0600, written whole and
 * renamed into place, then read back so this process uses what the file holds). A folder that
 * takes no write gets a secret of this process only: entries of earlier runs are misses.
 */
export async function folderSecret(file: string): Promise<Buffer> {
  const read = () => readFile(file, "utf8").then(secretOf, () => undefined);
  const found = await read();
  if (found) return found;
  const made = newSecret();
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(temporary, made, { mode: 0o600, flag: "wx" });
    await rename(temporary, file);
    return (await read()) ?? Buffer.from(made, "hex");
  } catch {
    await rm(temporary, { force: true });
    return Buffer.from(made, "hex");
  }
}
