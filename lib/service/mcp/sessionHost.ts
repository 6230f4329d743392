/**
 * The MCP tools' host on the service: a tool call is one operation of the service session the
 * MCP session owns, run by Session.operate as `mcp.<tool>`, so it is journaled and shown on the
 * dashboard, keeps the session from its idle end, and is refused while another operation of
 * the session runs. A URL is judged by the service's address rule before the browser is asked,
 * as `/navigate` judges it.
 */
import { checkNavigation, NavigationRefusedError } from "../../browser/navigationPolicy.js";
import type { McpHost } from "../../mcp/host.js";
import { type AddressRule, urlRefusal } from "../../net/addressRule.js";
import type { Session } from "../session.js";

export function sessionHost(session: Session, rule: AddressRule): McpHost {
  return {
    hasModel: session.modelName !== undefined,
    around(tool, work) {
      return session.operate(`mcp.${tool}`, (operations, context) =>
        work({ context, operations, deps: session.toolDeps }),
      );
    },
    async checkUrl(url) {
      const parsed = checkNavigation(url);
      if (!/^https?:$/.test(parsed.protocol)) return;
      const refused = await urlRefusal(url, rule);
      if (refused) throw new NavigationRefusedError(url, refused);
    },
    // The session is the MCP session's (mcpSessions.ts ends it on DELETE); nothing of the host's.
    async close() {},
  };
}
