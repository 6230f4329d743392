/**
 * `npm run dev`: serves /api/run on 127.0.0.1 as the platform would (GET and POST, same
 * answers), without a platform account. Without CRON_SECRET no bearer is asked for (it says
 * so); deployed, the function refuses to run without one. PORT picks the port (default 3000).
 * SIGTERM or Ctrl-C closes the server and ends the process (a run under way ends with it: its
 * browser is closed by its lifeline).
 */
import * as run from "../api/run.js";
import { serveFunction } from "../test/support/functionServer.js";
import { configuredJob } from "./needsModelKey.js";

if (configuredJob()) {
  const server = await serveFunction(run, "/api/run", Number(process.env.PORT ?? 3000));
  console.log(`/api/run on ${server.url}`);
  if (!process.env.CRON_SECRET) {
    console.log(
      "No CRON_SECRET: no bearer is asked for here (a deployment refuses to run without one).",
    );
  }
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      void server.close().finally(() => process.exit(0));
    });
  }
}
