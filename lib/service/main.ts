/**
 * `npm run service`: the HTTP service on one machine, embedded defaults. Prints
 * `listening on http://HOST:PORT` when ready; SIGTERM or SIGINT end every session and exit.
 */
import { serviceConfig } from "./config.js";
import { loadKeys } from "./keys.js";
import { buildService } from "./server.js";

const say = (line: string) => process.stdout.write(`${line}\n`);
const config = serviceConfig();
const keys = await loadKeys(config.apiKeys, config.dataDir, say);
const service = buildService(config, keys);
const address = await service.app.listen({ host: config.host, port: config.port });
say(`listening on ${address}`);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  say(`${signal}: ending every session`);
  // Whatever happens, the process is gone within 20 s.
  setTimeout(() => process.exit(1), 20_000).unref();
  service.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
