/**
 * The agent's workshop sign-up task as a plain Playwright script that already knows the pages:
 * page through the list to the workshop, open it, register with Saturday morning, see that it
 * is full, take Saturday afternoon, and read the confirmation code. The page starts on
 * workshops.html; the baseline the agent's run on the same task is compared with.
 */
import type { Page } from "playwright-core";

const WORKSHOP = "Advanced Tea Blending";
/** Each wait of the script; the pages are local and quick. */
const TIMEOUT = 10_000;

export async function workshopScript(pw: Page): Promise<string> {
  const details = pw.getByRole("link", { name: `Details of ${WORKSHOP}`, exact: true });
  // The list shows four workshops a page: on to the next until the one wanted is there.
  while ((await details.count()) === 0) {
    const next = pw.getByRole("link", { name: "Next", exact: true });
    if ((await next.count()) === 0) throw new Error(`${WORKSHOP} is on no page of the list`);
    const href = await next.getAttribute("href", { timeout: TIMEOUT });
    await Promise.all([
      pw.waitForURL((url) => url.href.endsWith(href!), { timeout: TIMEOUT }),
      next.click({ timeout: TIMEOUT }),
    ]);
  }
  await Promise.all([
    pw.waitForURL(/workshop\.html/, { timeout: TIMEOUT }),
    details.click({ timeout: TIMEOUT }),
  ]);
  await pw.getByRole("button", { name: "Register", exact: true }).click({ timeout: TIMEOUT });
  const dialog = pw.getByRole("dialog", { name: `Register for ${WORKSHOP}` });
  await dialog.getByLabel("Full name").fill("Ada Lovelace", { timeout: TIMEOUT });
  await dialog.getByLabel("Email").fill("ada@example.com", { timeout: TIMEOUT });

  const register = async (session: string) => {
    await dialog.getByRole("combobox", { name: "Session" }).click({ timeout: TIMEOUT });
    await dialog.getByRole("option", { name: session, exact: true }).click({ timeout: TIMEOUT });
    await dialog.getByRole("button", { name: "Confirm registration" }).click({ timeout: TIMEOUT });
  };
  await register("Saturday morning");
  await dialog
    .getByRole("alert")
    .filter({ hasText: "Saturday morning is full" })
    .waitFor({ timeout: TIMEOUT });
  await register("Saturday afternoon");
  const done = dialog.getByText(/Your confirmation code is/);
  const text = await done.textContent({ timeout: TIMEOUT });
  const code = text?.match(/TEA-\d{4}/)?.[0];
  if (!code || !text?.includes("Saturday afternoon")) throw new Error(`not registered: ${text}`);
  return code;
}
