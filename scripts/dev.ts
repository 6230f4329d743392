/**
 * `npm run dev`: serves /api/run on 127.0.0.1 as the platform would (GET and POST, same
 * answers), without a platform account. Without CRON_SECRET no bearer is asked for (it says
 * so); deployed, the function refuses to run without one. PORT picks the port (default 3000).
 */
import * as run from "../api/run.js";
import { serveFunction } from "../test/support/functionServer.js";
import { configuredJob } from "./needsModelKey.js";

if (configuredJob()) {
  const { url } = await serveFunction(run, "/api/run", Number(process.env.PORT ?? 3000));
  console.log(`/api/run on ${url}`);
  if (!process.env.CRON_SECRET) {
    console.log(
      "No CRON_SECRET: no bearer is asked for here (a deployment refuses to run without one).",
    );
  }
}
