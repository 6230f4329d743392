/**
 * The demo job until the full job (act + extract inside a budget) lands: open a page in a real
 * browser, read its title and final URL, close the browser on every path.
 */
import { Client } from "../client.js";
import type { V3Options } from "../options.js";

export interface PageDescription {
  title: string;
  url: string;
}

export async function describePage(
  url: string,
  options: Partial<V3Options> & { timeoutMs?: number } = {},
): Promise<PageDescription> {
  const { timeoutMs = 30_000, ...clientOptions } = options;
  const client = new Client({ env: "LOCAL", verbose: 0, ...clientOptions } as V3Options);
  try {
    await client.init();
    const page = client.context.activePage()!;
    await page.goto(url, { waitUntil: "domcontentloaded", timeout: timeoutMs });
    return { title: await page.title({ timeout: timeoutMs }), url: page.url() };
  } finally {
    await client.close();
  }
}
