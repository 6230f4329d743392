/**
 * A forward HTTP proxy on 127.0.0.1 that asks for Basic credentials and answers every request
 * itself, so that "http://anything.test/" never leaves the machine.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ProxyServer {
  server: string;
  seen: Array<{ url: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

export async function startProxy(credentials: {
  username: string;
  password: string;
}): Promise<ProxyServer> {
  const expected = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString("base64")}`;
  const seen: ProxyServer["seen"] = [];
  const proxy = createServer((req, res) => {
    const authorization = req.headers["proxy-authorization"];
    seen.push({ url: req.url ?? "", authorization });
    if (authorization !== expected) {
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="wayfarer-test"' }).end();
      return;
    }
    res
      .writeHead(200, { "content-type": "text/html" })
      .end(`<title>via proxy</title><p id="url">${req.url}</p>`);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    server: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}
