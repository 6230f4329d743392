/**
 * docs/reference/ is the code's own account: stale pages, an error class missing from the
 * registry, or a variable the code reads without a registry row fail here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ENV_VARS } from "../../lib/envVars.js";
import { ERROR_REGISTRY } from "../../lib/errorRegistry.js";
import * as publicApi from "../../lib/index.js";
import { KEY_VARIABLES } from "../../lib/model/providers.js";
import { V3OptionsSchema } from "../../lib/options.js";
import { secretsOf } from "../../lib/secrets.js";
import { generatedReference, ROOT } from "../../scripts/docs/reference.js";
import { fieldRows, typeText } from "../../scripts/docs/zodFields.js";

describe("docs/reference", () => {
  it("matches what `npm run docs` writes from the code", () => {
    const stale = generatedReference().filter(({ path, text }) => {
      let onDisk = "";
      try {
        onDisk = readFileSync(join(ROOT, path), "utf8");
      } catch {}
      return onDisk !== text;
    });
    expect(
      stale.map((f) => f.path),
      "stale generated pages: run `npm run docs` and commit them",
    ).toEqual([]);
  });

  it("holds no page the generator does not write", () => {
    const written = generatedReference().map((f) => f.path);
    const present = readdirSync(join(ROOT, "docs/reference")).map((f) => `docs/reference/${f}`);
    expect(present.sort()).toEqual(written.sort());
  });
});

describe("the reader of zod schemas", () => {
  const Named = z.object({ a: z.string() });
  const schema = z.strictObject({
    plain: z.string().describe("a string"),
    counted: z.number().int().default(3).describe("a number"),
    choice: z.enum(["x", "y"]).optional().describe("a choice"),
    nested: Named.optional(),
    list: z.array(z.union([z.literal(1), z.literal(2)])).describe("a list"),
    fn: z
      .custom<() => void>((v) => typeof v === "function")
      .optional()
      .meta({ type: "() => void", description: "a function" }),
  });
  const rows = fieldRows(schema.shape, new Map([[Named, "Named"]]));

  it("reads type, requiredness, default and description through the wrappers", () => {
    expect(rows).toEqual([
      { name: "plain", type: "string", required: true, description: "a string" },
      {
        name: "counted",
        type: "number",
        required: false,
        defaultValue: "3",
        description: "a number",
      },
      { name: "choice", type: '"x" | "y"', required: false, description: "a choice" },
      { name: "nested", type: "Named", required: false },
      { name: "list", type: "(1 | 2)[]", required: true, description: "a list" },
      { name: "fn", type: "() => void", required: false, description: "a function" },
    ]);
  });

  it("refuses a schema it has no words for instead of printing a wrong type", () => {
    expect(() =>
      typeText(
        z.custom(() => true),
        new Map(),
      ),
    ).toThrow(/no words for a zod "custom"/);
  });
});

describe("the error registry", () => {
  const exported = Object.entries(publicApi)
    .filter(
      ([, value]) =>
        typeof value === "function" &&
        (value === publicApi.ServiceError || value.prototype instanceof publicApi.ServiceError),
    )
    .map(([name]) => name);

  it("lists every error class the library exports, and only those", () => {
    expect(exported.length).toBeGreaterThan(15);
    expect(ERROR_REGISTRY.map((e) => e.name).sort()).toEqual([...exported].sort());
  });

  it("gives each a distinct code, and names each as its instances do", () => {
    const codes = ERROR_REGISTRY.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(code).toMatch(/^[A-Z][A-Z_]+$/);
    const error = new publicApi.ServiceTimeoutError("act", 5, "the page");
    expect(ERROR_REGISTRY.find((e) => e.type === publicApi.ServiceTimeoutError)?.name).toBe(
      error.name,
    );
  });
});

/** Every TypeScript file of the shipped code: what it reads is what the registry must list. */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("the environment registry", () => {
  const files = ["lib", "api", "scripts"].flatMap(sourceFiles);
  const sources = files.map((file) => ({ file, text: readFileSync(join(ROOT, file), "utf8") }));
  const listed = (name: string) =>
    ENV_VARS.some((v) =>
      v.name.includes("<")
        ? name.startsWith(v.name.slice(0, v.name.indexOf("<")))
        : v.name === name,
    );

  it("lists every variable the code reads", () => {
    const read = new Set<string>(Object.values(KEY_VARIABLES));
    // env.NAME or env["NAME"], but not an assignment (a variable set for a child process).
    const access =
      /\benv(?:\.([A-Z][A-Z0-9_]*)(?![\w])|\[["']([A-Z][A-Z0-9_]*)["']\])(?!\s*=[^=])/g;
    for (const { text } of sources) {
      for (const m of text.matchAll(access)) read.add((m[1] ?? m[2]) as string);
    }
    expect(read.size).toBeGreaterThan(25);
    expect([...read].filter((name) => !listed(name))).toEqual([]);
  });

  it("lists no variable the code never mentions", () => {
    // The secret ones are all read by the redactor (secrets.ts), through the registry itself.
    const others = sources.filter(({ file }) => relative("lib", file) !== "envVars.ts");
    const unused = ENV_VARS.filter((v) => !v.secret)
      .map((v) => v.name)
      .filter((name) => !others.some(({ text }) => text.includes(name)));
    expect(unused).toEqual([]);
  });

  it("is where the redactor takes the secret ones from", () => {
    const env = {
      MICROSOFT_API_KEY: "ms-key-0123456789",
      BRAVE_SEARCH_API_KEY: "brave-key-0123456789",
      AZURE_RESOURCE_NAME: "my-resource",
    };
    const secrets = secretsOf(V3OptionsSchema.parse({ env: "LOCAL" }), env);
    expect(secrets).toContain(env.MICROSOFT_API_KEY);
    expect(secrets).toContain(env.BRAVE_SEARCH_API_KEY);
    expect(secrets).not.toContain(env.AZURE_RESOURCE_NAME);
  });
});
