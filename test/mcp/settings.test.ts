/**
 * Settings of the local browser given to a server whose browser is a service's do nothing: the
 * start names them, so the user can drop them, and names nothing that was left at its default.
 */
import { describe, expect, it } from "vitest";
import { inactiveSettings, readSettings } from "../../lib/mcp/settings.js";

const remote = (argv: string[], env: Record<string, string> = {}) => {
  const settings = readSettings(argv, { WAYFARER_API_KEY: "key-0123456789", ...env });
  if ("help" in settings) throw new Error("help asked");
  return inactiveSettings(settings, env);
};

describe("settings a REMOTE server ignores", () => {
  it("are named when given, the page cap among them; defaults are not", () => {
    expect(remote([])).toEqual([]);
    expect(remote(["--max-pages", "20", "--headful"])).toEqual(["headful", "max pages"]);
    expect(remote([], { WAYFARER_MCP_MAX_PAGES: "5", WAYFARER_MCP_EGRESS: "1" })).toEqual([
      "egress",
      "max pages",
    ]);
  });

  it("are none for a LOCAL server", () => {
    const settings = readSettings(["--max-pages", "20", "--headful"], {});
    expect("help" in settings ? undefined : inactiveSettings(settings, {})).toEqual([]);
  });
});
