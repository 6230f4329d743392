/**
 * Reads a zod object schema as the reference's rows: each field's type in TypeScript words,
 * whether it is required, its default and the description carried on it (`.describe()` or
 * `.meta({ description, type })`, on the field or on the schema it wraps).
 */
import { z } from "zod";

export interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  /** The default as written in code, when there is one. */
  defaultValue?: string;
  description?: string;
  /** A function, signal or page object: it cannot cross a process boundary. */
  libraryOnly?: true;
}

/** Schemas printed by name instead of spelled out. */
export type SchemaNames = ReadonlyMap<z.ZodType, string>;

type Def = { type: string } & Record<string, unknown>;
const defOf = (schema: z.ZodType): Def => schema._zod.def as unknown as Def;
const metaOf = (schema: z.ZodType) =>
  z.globalRegistry.get(schema) as
    | { description?: string; type?: string; libraryOnly?: boolean }
    | undefined;

/** The wrappers a field's real schema sits in: optional, default, nullable, lazy, readonly. */
function unwrapOnce(schema: z.ZodType): z.ZodType | undefined {
  const def = defOf(schema);
  if (["optional", "default", "prefault", "nullable", "readonly", "nonoptional"].includes(def.type))
    return def.innerType as z.ZodType;
  if (def.type === "lazy") return (def.getter as () => z.ZodType)();
  return undefined;
}

export function fieldRows(shape: Record<string, z.ZodType>, names: SchemaNames): FieldRow[] {
  return Object.entries(shape).map(([name, field]) => {
    let description: string | undefined;
    let defaultValue: string | undefined;
    let required = true;
    let libraryOnly = false;
    for (let s: z.ZodType | undefined = field; s; s = unwrapOnce(s)) {
      description ??= metaOf(s)?.description;
      libraryOnly ||= metaOf(s)?.libraryOnly === true;
      const def = defOf(s);
      if (def.type === "optional") required = false;
      if (def.type === "default") {
        required = false;
        defaultValue ??= shownDefault(def.defaultValue);
      }
      if (names.has(s) || metaOf(s)?.type) break;
    }
    const row: FieldRow = {
      name,
      type: typeText(field, names),
      required,
      defaultValue,
      description,
    };
    return libraryOnly ? { ...row, libraryOnly: true } : row;
  });
}

function shownDefault(value: unknown): string {
  if (value && typeof value === "object" && !Array.isArray(value)) return "its fields' defaults";
  return JSON.stringify(value);
}

/** The field's type as a TypeScript reader writes it, wrappers left out. */
export function typeText(schema: z.ZodType, names: SchemaNames, depth = 0): string {
  const named = names.get(schema) ?? metaOf(schema)?.type;
  if (named) return named;
  const def = defOf(schema);
  const inner = (s: unknown) => typeText(s as z.ZodType, names, depth + 1);
  switch (def.type) {
    case "optional":
    case "default":
    case "prefault":
    case "nullable":
    case "readonly":
    case "nonoptional":
    case "lazy":
      return inner(unwrapOnce(schema));
    case "pipe":
      return inner(def.in);
    case "string":
      return (def as { format?: string }).format === "url" ? "string (URL)" : "string";
    case "number":
    case "int":
      return "number";
    case "boolean":
      return "boolean";
    case "unknown":
    case "any":
      return "unknown";
    case "literal":
      return (def.values as unknown[]).map((v) => JSON.stringify(v)).join(" | ");
    case "enum":
      return Object.values(def.entries as Record<string, string>)
        .map((v) => JSON.stringify(v))
        .join(" | ");
    case "array": {
      const element = inner(def.element);
      return element.includes(" ") ? `(${element})[]` : `${element}[]`;
    }
    case "record":
      return `Record<${inner(def.keyType)}, ${inner(def.valueType)}>`;
    case "union":
      return (def.options as z.ZodType[]).map(inner).join(" | ");
    case "object":
      return depth > 1
        ? "object"
        : `{ ${Object.entries(def.shape as Record<string, z.ZodType>)
            .map(([k, v]) => `${k}${isOptional(v) ? "?" : ""}: ${inner(v)}`)
            .join("; ")} }`;
    default:
      throw new Error(
        `typeText: no words for a zod "${def.type}"; give the schema a name or .meta({ type })`,
      );
  }
}

function isOptional(schema: z.ZodType): boolean {
  const t = defOf(schema).type;
  return t === "optional" || t === "default";
}

/** Markdown table cells: pipes and line breaks would end the cell. */
export const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** GitHub's anchor of a heading (test/docs/links.test.ts checks every link to one). */
export const anchorOf = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

/** A field's default as a table shows it: required, none, a value, or its fields' own. */
export function givenText(field: FieldRow): string {
  if (field.defaultValue === undefined) return field.required ? "required" : "—";
  return field.defaultValue.startsWith("its ")
    ? field.defaultValue
    : `\`${cell(field.defaultValue)}\``;
}

/**
 * One field as a row of `| Name | Type | Default | Description |`; a type with a section of
 * its own links to it (`typeLinks`: type → `#anchor`).
 */
export function markdownRow(field: FieldRow, typeLinks: Record<string, string> = {}): string {
  const code = `\`${cell(field.type)}\``;
  const link = typeLinks[field.type];
  const type = link ? `[${code}](${link})` : code;
  const description = `${field.description ?? ""}${field.libraryOnly ? " **Library only.**" : ""}`;
  return `| \`${field.name}\` | ${type} | ${givenText(field)} | ${cell(description)} |`;
}
