/**
 * `npm run dev`: serves /api/run on 127.0.0.1 as the platform would (GET and POST, same
 * answers), without a platform account. Without CRON_SECRET no bearer is asked for (it says
 * so); deployed, the function refuses to run without one. PORT picks the port (default 3000).
 */
import { createServer } from "node:http";
import * as run from "../api/run.js";
import { configuredJob } from "./needsModelKey.js";

if (configuredJob()) {
  const port = Number(process.env.PORT ?? 3000);
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    const handler = req.method === "GET" ? run.GET : req.method === "POST" ? run.POST : undefined;
    if (url.pathname !== "/api/run" || !handler) {
      res.writeHead(404, { "content-type": "text/plain" }).end("GET or POST /api/run");
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = new Request(url, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
    });
    const response = await handler(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  server.listen(port, "127.0.0.1", () => {
    console.log(`/api/run on http://127.0.0.1:${port}/api/run`);
    if (!process.env.CRON_SECRET) {
      console.log(
        "No CRON_SECRET: no bearer is asked for here (a deployment refuses to run without one).",
      );
    }
  });
}
