/**
 * What the service sections put around a side to read its timing on the bench's own clock: a
 * page server that notes when a page's click arrives, and a tap in front of the model kit that
 * notes when each model request arrived and when its answer's last byte was handed to the
 * socket. Every time is `performance.now()` of this process.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Listening {
  server: Server;
  origin: string;
}

export async function listen(server: Server): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** The shop fixture's list, with buttons that tell the page's server of each click. */
export const SHOP = `<!doctype html>
<html>
  <head><title>Tea shop</title></head>
  <body>
    <h1>Tea shop</h1>
    <ul>
      <li><a href="/products/green">Green tea</a> <span>$4.50</span> <button onclick="add('green')">Add to cart</button></li>
      <li><a href="/products/black">Black tea</a> <span>$3.20</span> <button onclick="add('black')">Add to cart</button></li>
      <li><a href="/products/white">White tea</a> <span>$7.00</span> <button onclick="add('white')">Add to cart</button></li>
      <li><a href="/products/oolong">Oolong</a> <span>$6.10</span> <button onclick="add('oolong')">Add to cart</button></li>
    </ul>
    <p>Every tea is packed by hand in our shop, weighed on the morning of shipping, and sealed in a tin.</p>
    <p id="cart">Cart: empty</p>
    <script>
      let added = 0;
      function add(item) {
        added++;
        fetch("/clicked?item=" + item + "&n=" + added, { method: "POST", keepalive: true });
        document.getElementById("cart").textContent = "Cart: " + item + " (" + added + ")";
      }
    </script>
  </body>
</html>`;

/** The page's server: the shop at /shop.html, and the time each click's request arrived. */
export async function startShop() {
  const clicks: number[] = [];
  const server = createServer((req, res) => {
    if (req.url?.startsWith("/clicked")) {
      clicks.push(performance.now());
      req.resume();
      return void res.writeHead(204).end();
    }
    if (req.url === "/shop.html") {
      return void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(SHOP);
    }
    res.writeHead(404).end();
  });
  return { ...(await listen(server)), clicks };
}

/**
 * In front of the model kit: each request passed on whole, each answer written back whole; the
 * time each request's head arrived (`asked`) and its answer's last byte was handed to the
 * socket (`answered`).
 */
export async function startModelTap(modelUrl: string) {
  const asked: number[] = [];
  const answered: number[] = [];
  const kit = new URL(modelUrl);
  const server = createServer(async (req, res) => {
    asked.push(performance.now());
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string" && !["host", "connection", "content-length"].includes(name))
        headers[name] = value;
    }
    const upstream = await fetch(`${kit.origin}${req.url}`, {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const body = Buffer.from(await upstream.arrayBuffer());
    res.on("finish", () => answered.push(performance.now()));
    res
      .writeHead(upstream.status, {
        "content-type": upstream.headers.get("content-type") ?? "application/json",
      })
      .end(body);
  });
  const listening = await listen(server);
  return { ...listening, url: `${listening.origin}${kit.pathname}`, asked, answered };
}
