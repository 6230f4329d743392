/**
 * A context at rest: compressed, then sealed with AES-256-GCM under a key of its own, derived
 * (HKDF-SHA256) from a secret of the service, the project and the context's id. A file copied
 * under another project or another id does not open (its key differs), and neither does one
 * with a byte changed, its clear header included (it is the cipher's associated data).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { ContextError } from "../errors.js";

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The key of one context of one project. */
export function contextKey(secret: Buffer, project: string, id: string): Buffer {
  // NUL never occurs in a project's name or an id: the two cannot be shifted into each other.
  return Buffer.from(hkdfSync("sha256", secret, "wayfarer-context-v1", `${project}\0${id}`, 32));
}

/** `plain` sealed: version, IV, tag, then the compressed bytes enciphered. */
export function sealContext(plain: Buffer, key: Buffer, associated: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(associated);
  const body = Buffer.concat([cipher.update(deflateRawSync(plain)), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
}

/** What sealContext sealed, or a ContextError when it is not that (another key, a change). */
export function openContext(
  sealed: Buffer,
  key: Buffer,
  associated: Buffer,
  maxBytes: number,
): Buffer {
  if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== VERSION) {
    throw new ContextError("the context's file is not one this service wrote");
  }
  const iv = sealed.subarray(1, 1 + IV_BYTES);
  const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv("aes-256-gcm", key, iv);
  decipher.setAAD(associated);
  decipher.setAuthTag(tag);
  let compressed: Buffer;
  try {
    compressed = Buffer.concat([
      decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    throw new ContextError(
      "the context's file does not open with this service's key for this project and id",
    );
  }
  try {
    // Bounded: a small file must not unpack into gigabytes.
    return inflateRawSync(compressed, { maxOutputLength: maxBytes });
  } catch {
    throw new ContextError("the context's profile is past what a context keeps");
  }
}
