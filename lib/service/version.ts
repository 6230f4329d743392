/** The service's version: package.json's, said by the front page and the OpenAPI document. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

const PACKAGE = z
  .object({ version: z.string().min(1) })
  .parse(JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8")));

export const SERVICE_VERSION = PACKAGE.version;
