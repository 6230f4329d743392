/**
 * A page of the test's own markup whose trusted clicks are counted by element id: what the
 * click tests (directClick, clickAttack) look at to say where a click landed.
 */
import type { Page as PlaywrightPage } from "playwright-core";
import type { Page } from "../../lib/browser/page.js";
import type { useClients } from "./clients.js";
import type { StaticServer } from "./staticServer.js";

/** Each element's trusted clicks are counted in `window.clicks` by its id. */
const COUNTING = `<script>
  window.clicks = {};
  addEventListener("click", (e) => {
    if (!e.isTrusted) return;
    const id = e.target.closest("[id]")?.id ?? "nothing";
    clicks[id] = (clicks[id] ?? 0) + 1;
  });
</script>`;

export function clickPages(
  server: Omit<StaticServer, "close">,
  clients: ReturnType<typeof useClients>,
) {
  return {
    /** A client's page showing `body` (on the static server's origin), clicks counted. */
    async open(body: string): Promise<{ page: Page; pw: PlaywrightPage }> {
      const client = await clients.open();
      const page = client.context.activePage()!;
      await page.goto(server.url("basic.html"));
      await page.playwrightPage.setContent(
        `<!doctype html><html><body>${body}${COUNTING}</body></html>`,
      );
      return { page, pw: page.playwrightPage };
    },
    /** The trusted clicks so far, by element id (`nothing` for one outside any id). */
    clicks: (pw: PlaywrightPage) =>
      pw.evaluate(() => (window as unknown as { clicks: Record<string, number> }).clicks),
  };
}
