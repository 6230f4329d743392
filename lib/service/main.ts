/**
 * `npm run service` and `bin/wayfarer-service`: the HTTP service, embedded defaults on one
 * machine, or shared mode with REDIS_URL (several instances, one Redis). Prints `listening on
 * http://HOST:PORT` when ready; SIGTERM or SIGINT end every session and exit. Its settings are
 * environment variables; its one argument, `--new-key`, replaces the saved API key.
 */
import { parseArgs } from "node:util";
import { armLifeline } from "../browser/lifeline.js";
import { warmUpModels } from "../model/warmUp.js";
import { readableMessage } from "../readableError.js";
import { serviceConfig } from "./config.js";
import { isolationLines } from "./isolation.js";
import { loadKeys } from "./keys.js";
import { buildService } from "./server.js";
import { Cluster } from "./shared/cluster.js";
import { redisAddress } from "./shared/redis.js";

const say = (line: string) => process.stdout.write(`${line}\n`);
const failed = (error: unknown): never => {
  process.stderr.write(`${readableMessage(error)}\n`);
  process.exit(1);
};
const args = await Promise.resolve()
  .then(() => parseArgs({ options: { "new-key": { type: "boolean" } }, strict: true }).values)
  .catch((error: unknown) =>
    failed(
      `${readableMessage(error)}\nthe service takes one argument, --new-key (a new API key replacing the saved one); every setting is an environment variable (docs/reference/environment.md).`,
    ),
  );
const config = await Promise.resolve()
  .then(() => serviceConfig())
  .catch(failed);
const keys = await loadKeys(config.apiKeys, config.dataDir, say, config.localMode, {
  newKey: args["new-key"],
}).catch(failed);
for (const note of config.notes) say(note);
const cluster = config.shared
  ? await Cluster.join(config.shared, config.ratePerMinute).catch(failed)
  : undefined;
// Killed outright (SIGKILL, the OOM killer), no exit hook runs: the lifeline ends our browsers.
armLifeline();
const service = await Promise.resolve()
  .then(() => buildService(config, keys, cluster))
  .catch(failed);
// What keeps each session's browser apart from this host, and what this host cannot give.
for (const line of isolationLines(
  service.sessions.browserUsers.plan,
  config.limits.browserMaxMemoryMb,
  config.allowUnsandboxed,
)) {
  say(line);
}
const address = await service.listen(config.host, config.port).catch(failed);
if (cluster && config.shared) {
  say(
    `shared mode: instance ${cluster.instanceId}, Redis at ${redisAddress(config.shared.redisUrl)}`,
  );
}
say(`listening on ${address}`);
// The first model call's one-time costs, paid now rather than in a caller's first request.
void warmUpModels();

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
