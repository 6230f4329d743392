/**
 * The demo job until the full job (act + extract inside a budget) lands: open a page in a real
 * browser, read its title and final URL, close the browser on every path, all inside one budget.
 */
import {
  guardNavigations,
  type NavigationAllowance,
  NavigationRefusedError,
  navigationRefusal,
} from "../browser/navigationPolicy.js";
import { Client } from "../client.js";
import { ServiceTimeoutError } from "../errors.js";
import type { V3Options } from "../options.js";
import { withTimeout } from "../timeout.js";

export interface PageDescription {
  title: string;
  url: string;
}

export interface DescribePageOptions {
  /** For everything: launch, navigation, reading. Default 50 s (the function has 60). */
  budgetMs?: number;
  allow?: NavigationAllowance;
  client?: Partial<V3Options>;
}

const METHOD = "describePage";

export async function describePage(
  url: string,
  options: DescribePageOptions = {},
): Promise<PageDescription> {
  const refused = await navigationRefusal(url, options.allow);
  if (refused) throw new NavigationRefusedError(url, refused);
  const client = new Client({ env: "LOCAL", verbose: 0, ...options.client } as V3Options);
  let expired = false;
  try {
    return await withTimeout(METHOD, options.budgetMs ?? 50_000, `${url} to open`, async (d) => {
      d.step("init");
      await client.init();
      const page = client.context.activePage()!;
      // The policy holds for every navigation, not just the first: redirects, and whatever
      // the page opens by itself.
      const browser = page.playwrightPage.context().browser();
      if (browser)
        await guardNavigations(browser, (next) => navigationRefusal(next, options.allow));
      d.step("goto");
      await page.goto(url, { waitUntil: "domcontentloaded", timeout: d.remaining() });
      d.step("title");
      return { title: await page.title({ timeout: d.remaining() }), url: page.url() };
    });
  } catch (error) {
    // Every step's limit is what is left of the budget: any timeout means the budget is spent.
    expired = error instanceof ServiceTimeoutError;
    throw error;
  } finally {
    // Out of time: do not wait for a graceful close or a launch under way.
    await client.close({ force: expired });
  }
}
