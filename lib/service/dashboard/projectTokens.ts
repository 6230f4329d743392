/**
 * The project view's credential: a key holder mints a link that lists the project's live
 * sessions, read-only, until it expires. The token names its project and its end, signed with
 * a key this process made (HMAC-SHA256): nothing is stored per link, another project's name or a
 * later end cannot be written in, and a restart ends every link (the sessions end with it).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";

const Claims = z.object({ p: z.string().min(1).max(200), e: z.number().int().positive() });
/** Longer than any token minted here: a longer one is refused before it is read. */
const MAX_TOKEN_CHARS = 1_000;

export type ProjectTokenCheck =
  | { project: string; expiresAt: number }
  | { refused: "invalid" }
  | { refused: "expired"; expiredAt: number };

export class ProjectTokens {
  private readonly key = randomBytes(32);

  constructor(private readonly now: () => number = Date.now) {}

  /** A token for `project`'s view that works for `ttlMs`. */
  mint(project: string, ttlMs: number): { token: string; expiresAt: number } {
    const expiresAt = this.now() + ttlMs;
    const claims = Buffer.from(JSON.stringify({ p: project, e: expiresAt })).toString("base64url");
    return { token: `${claims}.${this.sign(claims)}`, expiresAt };
  }

  /** The project a token opens, or why it opens nothing. */
  check(token: unknown): ProjectTokenCheck {
    if (typeof token !== "string" || token.length > MAX_TOKEN_CHARS) return { refused: "invalid" };
    const [claims, signature, ...rest] = token.split(".");
    if (!claims || !signature || rest.length) return { refused: "invalid" };
    const given = Buffer.from(signature, "base64url");
    const expected = Buffer.from(this.sign(claims), "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { refused: "invalid" };
    }
    let parsed: z.infer<typeof Claims>;
    try {
      parsed = Claims.parse(JSON.parse(Buffer.from(claims, "base64url").toString("utf8")));
    } catch {
      return { refused: "invalid" };
    }
    if (parsed.e <= this.now()) return { refused: "expired", expiredAt: parsed.e };
    return { project: parsed.p, expiresAt: parsed.e };
  }

  private sign(claims: string): string {
    return createHmac("sha256", this.key).update(claims).digest("base64url");
  }
}
