import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import {
  checkNavigation,
  guardNavigations,
  NavigationRefusedError,
  navigationRefusal,
} from "../../lib/browser/navigationPolicy.js";
import { ServiceError } from "../../lib/index.js";
import { embeddedIPv4 } from "../../lib/net/addressRule.js";
import { useClients } from "../support/clients.js";
import { failure } from "../support/failure.js";

const clients = useClients();

describe("navigation policy", () => {
  it.each([
    "http://127.0.0.1:8080/a",
    "https://example.test/",
    "about:blank",
    "data:text/html,<p>x</p>",
  ])("allows %s", (url) => {
    expect(checkNavigation(url).href).toBeTruthy();
  });

  it.each([
    ["file:///etc/passwd", "file: scheme"],
    ["chrome://settings", "chrome: scheme"],
    ["devtools://devtools/bundled/inspector.html", "devtools: scheme"],
    ["javascript:alert(1)", "javascript: scheme"],
    ["http://169.254.169.254/latest/meta-data/", "metadata"],
    ["http://[fd00:ec2::254]/latest/", "metadata"],
    ["http://[fe80::1]/", "link-local"],
    ["http://[::ffff:169.254.169.254]/", "link-local"],
    ["http://metadata.google.internal/computeMetadata/v1/", "metadata"],
    ["http://metadata.google.internal./computeMetadata/v1/", "metadata"],
    ["http://instance-data.ec2.internal/latest/", "metadata"],
    ["http://[64:ff9b::a9fe:a9fe]/", "link-local"],
    ["http://[::a9fe:a9fe]/", "link-local"],
    // SIIT, local-use NAT64 (both places), 6to4 and Teredo (server; client with bits flipped).
    ["http://[::ffff:0:a9fe:a9fe]/", "link-local"],
    ["http://[64:ff9b:1::a9fe:a9fe]/", "link-local"],
    ["http://[64:ff9b:1:a9fe:a9:fe00::]/", "link-local"],
    ["http://[2002:a9fe:a9fe::1]/", "link-local"],
    ["http://[2001:0:a9fe:a9fe::1]/", "link-local"],
    ["http://[2001:0:4136:e378:8000:63bf:5601:5601]/", "link-local"],
    ["http://[0:0:0:0:0:ffff:169.254.169.254]/", "link-local"],
    ["http://2852039166/latest/", "link-local"],
    ["HTTP://169.254.169.254./", "link-local"],
    ["not a url", "not an absolute URL"],
  ])("refuses %s", (url, reason) => {
    const attempt = () => checkNavigation(url);
    expect(attempt).toThrow(NavigationRefusedError);
    expect(attempt).toThrow(reason);
    expect(attempt).toThrow(ServiceError);
  });

  it.each([
    "http://[2001:db8::1]/",
    "http://[2002:808:808::1]/",
    "http://[64:ff9b::808:808]/",
    "http://[::ffff:127.0.0.1]/",
  ])("allows an IPv6 address that carries no link-local one: %s", (url) => {
    expect(checkNavigation(url).href).toBeTruthy();
  });

  it("reads the IPv4 address an IPv6 one carries, in any spelling", () => {
    expect(embeddedIPv4("::ffff:0:a9fe:a9fe")).toContain("169.254.169.254");
    expect(embeddedIPv4("[0:0:0:0:0:0:a9fe:a9fe]")).toContain("169.254.169.254");
    expect(embeddedIPv4("2002:a9fe:a9fe:0:0:0:0:1")).toContain("169.254.169.254");
    expect(embeddedIPv4("2001:db8::1")).toEqual([]);
    expect(embeddedIPv4("not an address")).toEqual([]);
  });

  it("allows what the caller explicitly allows", () => {
    expect(checkNavigation("file:///tmp/page.html", { schemes: ["file:"] }).protocol).toBe("file:");
    expect(checkNavigation("http://169.254.1.1/", { linkLocal: true }).hostname).toBe(
      "169.254.1.1",
    );
  });
});

describe("navigation guard", () => {
  it("resolves names: a name that is not link-local passes", async () => {
    expect(await navigationRefusal("http://localhost:1/")).toBeUndefined();
    expect(await navigationRefusal("file:///etc/passwd")).toContain("file: scheme");
  });

  it("applies the check to redirects, page-started navigations and frames, never sending them", async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? "");
      if (req.url === "/start") return void res.writeHead(302, { location: "/forbidden" }).end();
      res.writeHead(200, { "content-type": "text/html" }).end(`<title>${req.url}</title>`);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const client = await clients.open();
      const page = client.context.activePage()!;
      const refused: string[] = [];
      await guardNavigations(
        page.playwrightPage.context().browser()!,
        async (url) => (url.includes("/forbidden") ? "test policy" : undefined),
        (url) => refused.push(url),
      );
      expect((await failure(page.goto(`${origin}/start`))).message).toContain(
        "ERR_BLOCKED_BY_CLIENT",
      );
      // Chromium shows its error page for the blocked one; let it finish before going on.
      await page.playwrightPage.waitForURL(/^chrome-error:/);
      await page.playwrightPage.waitForLoadState();
      await page.goto(`${origin}/allowed`);
      expect(await page.title()).toBe("/allowed");
      await page.evaluate((o) => {
        const frame = document.createElement("iframe");
        frame.src = `${o}/forbidden-frame`;
        document.body.append(frame);
      }, origin);
      await failure(
        page.evaluate((o) => {
          location.href = `${o}/forbidden-page`;
          return new Promise((r) => setTimeout(r, 500));
        }, origin),
      ).catch(() => undefined);
      await expect.poll(() => refused.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
      expect(seen.filter((u) => u.includes("forbidden"))).toEqual([]);
      expect(refused).toEqual(
        expect.arrayContaining([
          `${origin}/forbidden`,
          `${origin}/forbidden-frame`,
          `${origin}/forbidden-page`,
        ]),
      );
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
