/**
 * docs/reference/mcp.md, from the code: the MCP server's settings (McpSettingsSchema, each field
 * with its variable and flag) and every tool of MCP_TOOLS with its input fields, read from the
 * same zod schemas the server registers, so that the page says what a client's tools/list says.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { McpSettingsSchema, settingSource } from "../../lib/mcp/settings.js";
import { MCP_TOOLS, type McpTool, type ToolAnnotations } from "../../lib/mcp/tools/index.js";
import { VariablesSchema } from "../../lib/options.js";
import {
  anchorOf,
  cell,
  fieldRows,
  givenText,
  markdownRow,
  type SchemaNames,
} from "./zodFields.js";

const ROOT = join(import.meta.dirname, "..", "..");

/** The variables setting is read from a family of variables, each one a string. */
const NAMES: SchemaNames = new Map<z.ZodType, string>([[VariablesSchema, "string"]]);

/** What each hint tells a client, in the words of the MCP specification. */
const HINTS: Record<keyof ToolAnnotations, string> = {
  readOnlyHint: "read-only",
  destructiveHint: "destructive",
  idempotentHint: "idempotent",
  openWorldHint: "open world",
};

function hintsOf(annotations: ToolAnnotations): string {
  const set = (Object.keys(HINTS) as (keyof ToolAnnotations)[]).filter((h) => annotations[h]);
  return set.length ? set.map((h) => `\`${h}\``).join(", ") : "none";
}

/** The tool's own file: `fill_form` is lib/mcp/tools/fillForm.ts. */
function sourceOf(tool: McpTool): string {
  const file = `lib/mcp/tools/${tool.name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}.ts`;
  if (!existsSync(join(ROOT, file))) throw new Error(`the ${tool.name} tool is not in ${file}`);
  return file;
}

function settingsSection(): string[] {
  const rows = fieldRows(McpSettingsSchema.shape, NAMES).map((field) => {
    const { env, flag } = settingSource(field.name as keyof typeof McpSettingsSchema.shape);
    if (!field.description) {
      throw new Error(`McpSettingsSchema.${field.name}: no description; add .describe()`);
    }
    // `{}` of the variables is "none set", not a value anyone writes.
    const given = field.defaultValue?.startsWith("its ") ? "—" : givenText(field);
    return `| \`${env}\` | ${flag ? `\`${flag}\`` : "—"} | \`${cell(field.type)}\` | ${given} | ${cell(field.description)} |`;
  });
  return [
    "## Settings",
    "",
    "Each setting is an environment variable (the `env` of a client's config block) and, where it",
    "has one, a flag (its `args`); a flag wins over its variable. A value that does not fit stops the",
    "start with the flag's or the variable's name and what was expected; an empty variable counts",
    "as unset. `node bin/wayfarer-mcp --help` lists them too. Keys of model providers are read from",
    "their own variables ([the environment reference](environment.md)). Source:",
    "[lib/mcp/settings.ts](../../lib/mcp/settings.ts).",
    "",
    "| Variable | Flag | Type | Default | Description |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
  ];
}

function toolSection(tool: McpTool): string[] {
  const rows = fieldRows(tool.inputSchema.shape, NAMES);
  const missing = rows.filter((r) => !r.description).map((r) => r.name);
  if (missing.length) {
    throw new Error(`the ${tool.name} tool: no description on ${missing.join(", ")}`);
  }
  const source = sourceOf(tool);
  return [
    "",
    `### \`${tool.name}\``,
    "",
    `**${tool.title}.** ${tool.description}`,
    "",
    `Needs a model: ${tool.needsModel ? "**yes** (listed only when the server has one)" : "no"}. Hints: ${hintsOf(tool.annotations)}. Source: [${source}](../../${source}).`,
    "",
    ...(rows.length
      ? [
          "| Field | Type | Default | Description |",
          "| --- | --- | --- | --- |",
          ...rows.map((field) => markdownRow(field)),
        ]
      : ["No input: `{}`."]),
  ];
}

/** The page, under `banner` (the generator's "do not edit" line). */
export function mcpPage(banner: string): string {
  const lines = [
    "# MCP server",
    "",
    banner,
    "",
    "The settings and the tools of Wayfarer's MCP server (`bin/wayfarer-mcp`, `npm run -s mcp`),",
    "read from their zod schemas: the input schemas below are the ones a client's `tools/list`",
    "receives (as JSON Schema), with the same descriptions. How to set it up, and what each",
    "tool's answer looks like: [the MCP guide](../guide/mcp.md).",
    "",
    ...settingsSection(),
    "",
    "## Tools",
    "",
    "In the order `tools/list` gives them. An input that does not fit its schema is answered as a",
    "tool error naming the field, before anything is done. Ids are the `[id]`s of the latest",
    "outline (`read`, or an action's answer); a number is taken as its text.",
    "",
    "| Tool | What it does | Needs a model |",
    "| --- | --- | --- |",
    ...MCP_TOOLS.map(
      (t) =>
        `| [\`${t.name}\`](#${anchorOf(t.name)}) | ${cell(t.title)} | ${t.needsModel ? "yes" : "no"} |`,
    ),
    ...MCP_TOOLS.flatMap(toolSection),
  ];
  return `${lines.join("\n")}\n`;
}
