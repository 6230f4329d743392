/**
 * `npm run login`: the job's page in a browser for a person to log in once. The browser's
 * profile is then saved as the job's context, a file sealed with WAYFARER_CONTEXT_KEY (the
 * library's `context` option, persisted), and the job's runs start from it, logged in.
 */
import type { Page } from "../browser/page.js";
import { Client } from "../client.js";

export interface LogInRequest {
  /** The page to log in on (the job's). */
  url: string;
  /** The context file to write (the job's `context.file`). */
  file: string;
  /** A window for the person (the command); headless for a test that logs in itself. */
  headless: boolean;
  /** Resolves once the person is done (Enter in the terminal), or logs in itself (a test). */
  until: (page: Page) => Promise<void>;
}

/** Opens the page, waits for `until`, and saves the profile into `file` as the browser closes. */
export async function logInOnce(request: LogInRequest): Promise<void> {
  const client = new Client({
    env: "LOCAL",
    verbose: 0,
    disablePino: true,
    localBrowserLaunchOptions: {
      headless: request.headless,
      context: { path: request.file, persist: true },
    },
  });
  await client.init();
  let done = false;
  try {
    const page = client.context.activePage();
    if (!page) throw new Error("the browser opened no page");
    await page.goto(request.url);
    await request.until(page);
    done = true;
  } finally {
    // A close that asks the browser saves the profile; one cut short by a failure saves nothing.
    await client.close({ force: !done });
  }
}
