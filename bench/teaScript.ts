/**
 * The agent's three-page tea task as a plain Playwright script that already knows the pages:
 * type, search, open the result, read the price. The baseline bench:agent and bench:cache time
 * the agent against.
 */
import type { Page } from "playwright-core";

export async function teaScript(pw: Page): Promise<void> {
  await pw.fill("#q", "oolong");
  await Promise.all([pw.waitForURL(/results/), pw.click("button[type=submit]")]);
  await pw.getByRole("link", { name: "Oolong tea" }).click();
  await pw.waitForURL(/item/);
  const price = await pw.locator("#price").textContent();
  if (price !== "$6.40") throw new Error(`wrong price: ${price}`);
}
