/**
 * Every environment variable the code reads, in one place: the reference page
 * (docs/reference/environment.md) is generated from it, the redactor takes the secret ones from
 * it, and a test fails when code reads a variable that is not listed here.
 */

export type EnvGroup =
  | "job"
  | "deployment"
  | "model"
  | "browser"
  | "cache"
  | "agent"
  | "service"
  | "remote"
  | "mcp";

export interface EnvVar {
  /** The variable's name; `JOB_VAR_<NAME>` stands for a family. */
  name: string;
  group: EnvGroup;
  /** What it does, in a sentence or two. */
  what: string;
  /** What applies when it is unset. */
  unset?: string;
  /** Its value is a credential: scrubbed from logs, inference files, history, errors and answers. */
  secret: boolean;
}

export const ENV_GROUPS: Record<EnvGroup, string> = {
  job: "The job (`lib/job/`, `api/run.ts`): override `job.config.ts` without a redeploy",
  deployment: "The deployment (`api/run.ts`, `scripts/dev.ts`)",
  model: "Model providers (`lib/model/providers.ts`)",
  browser: "The browser (`lib/browser/`, `lib/engine/`)",
  cache: "The action cache (`lib/cache/`)",
  agent: "The agent's tools (`lib/agent/`)",
  service: "The HTTP service (`npm run service`, `lib/service/`)",
  remote: "The remote environment",
  mcp: "The MCP server (`npm run mcp`, `bin/wayfarer-mcp`, `lib/mcp/`; `--help` lists its flags)",
};

export const ENV_VARS: readonly EnvVar[] = [
  {
    name: "JOB_URL",
    group: "job",
    what: "The page the job opens (an absolute URL).",
    unset: "`url` of job.config.ts",
    secret: false,
  },
  {
    name: "JOB_ACT",
    group: "job",
    what: "The natural-language action the job performs.",
    unset: "`act` of job.config.ts",
    secret: false,
  },
  {
    name: "JOB_EXTRACT",
    group: "job",
    what: "What the job extracts, in words.",
    unset: "`extract` of job.config.ts",
    secret: false,
  },
  {
    name: "JOB_MODEL",
    group: "job",
    what: 'The job\'s model as `"provider/model"`.',
    unset: "`model` of job.config.ts",
    secret: false,
  },
  {
    name: "JOB_CACHE_DIR",
    group: "job",
    what: "The folder of the job's recorded actions (the action cache).",
    unset: "`cacheDir` of job.config.ts",
    secret: false,
  },
  {
    name: "JOB_BUDGET_MS",
    group: "job",
    what: "The job's whole time budget in ms (5000–800000); the answer comes before it ends.",
    unset: "`budgetMs` of job.config.ts, else 60000 (never above vercel.json's maxDuration)",
    secret: false,
  },
  {
    name: "JOB_EGRESS",
    group: "job",
    what: "`off` lets the job's browser send its requests without the egress guard (every request, sub-resources included, checked against link-local, cloud metadata, loopback and private addresses other than the job's own page); `on` turns it back on over a definition's `egress: false`.",
    unset: "`egress` of job.config.ts, else on",
    secret: false,
  },
  {
    name: "JOB_VAR_<NAME>",
    group: "job",
    what: "The value of `%NAME%` in the job's instructions. The model sees the name only; the value is typed at the last moment and hidden in everything written.",
    secret: true,
  },
  {
    name: "JOB_ORIGINS_<NAME>",
    group: "job",
    what: "Comma-separated origins where `JOB_VAR_<NAME>` may also be typed (`https://login.example.com`), besides the one the job's page lands on; anywhere else typing it is refused.",
    unset: "the value is typed only on the origin of the page the job acts on",
    secret: false,
  },
  {
    name: "CRON_SECRET",
    group: "deployment",
    what: "Every caller of `/api/run` sends `Authorization: Bearer <CRON_SECRET>`; Vercel's cron sends it by itself.",
    unset: "on Vercel every call is refused (500, saying so); elsewhere no bearer is asked for",
    secret: true,
  },
  {
    name: "RESULT_WEBHOOK_URL",
    group: "deployment",
    what: "Where `/api/run` POSTs each run's answer as JSON (retried with backoff, within the budget).",
    unset: "no webhook",
    secret: false,
  },
  {
    name: "RESULT_WEBHOOK_SECRET",
    group: "deployment",
    what: "Signs the webhook's body: `x-wayfarer-signature: sha256=<HMAC-SHA256 hex>`.",
    unset: "the body is sent unsigned",
    secret: true,
  },
  {
    name: "VERCEL_AUTOMATION_BYPASS_SECRET",
    group: "deployment",
    what: "Vercel's deployment-protection bypass, sent by outside schedulers as `x-vercel-protection-bypass`. Read only to keep it out of everything written.",
    secret: true,
  },
  {
    name: "VERCEL",
    group: "deployment",
    what: "Set by Vercel: `/api/run` refuses to run without `CRON_SECRET`, and the browser takes the serverless profile.",
    secret: false,
  },
  {
    name: "PORT",
    group: "deployment",
    what: "The port of `npm run dev`'s local endpoint, and of `npm run service` (`0` picks a free one).",
    unset: "3000",
    secret: false,
  },
  {
    name: "HOST",
    group: "service",
    what: "The address `npm run service` listens on.",
    unset: "127.0.0.1",
    secret: false,
  },
  {
    name: "WAYFARER_API_KEYS",
    group: "service",
    what: "The service's API keys, `project:key,project:key` (keys of 16 characters or more); a session belongs to its key's project.",
    unset:
      "a key is made for project `default`, printed once, and only its SHA-256 kept in the data folder",
    secret: true,
  },
  {
    name: "WAYFARER_DATA_DIR",
    group: "service",
    what: "The service's data folder (the made key's hash, the server cache).",
    unset:
      "`.wayfarer/` in the working folder; in local mode (`BB_ENV=local`) `$XDG_CACHE_HOME/wayfarer/local`, else `~/.cache/wayfarer/local`",
    secret: false,
  },
  {
    name: "BB_ENV",
    group: "service",
    what: "`local`, as the Python SDK's local mode sets it: without `WAYFARER_API_KEYS`, the service takes `BROWSERBASE_API_KEY` as the key of project `local`, only on a loopback `HOST` (docs/guide/clients.md).",
    unset: "not local mode",
    secret: false,
  },
  {
    name: "HEADLESS",
    group: "service",
    what: "Set by the Python SDK's local mode; `false` is ignored, with a line at start-up: the service's browsers are always headless.",
    secret: false,
  },
  {
    name: "XDG_CACHE_HOME",
    group: "service",
    what: "Where local mode (`BB_ENV=local`) keeps its data folder, under `wayfarer/local`.",
    unset: "`~/.cache`",
    secret: false,
  },
  {
    name: "MODEL_API_KEY",
    group: "service",
    what: "Set by the Python SDK's local mode for the server it starts; never used as a model key (a caller's model key comes only in `x-model-api-key`), kept out of everything written.",
    secret: true,
  },
  {
    name: "WAYFARER_ALLOW_HOSTS",
    group: "service",
    what: "Comma-separated host names, addresses or CIDR ranges the service's browsers may reach although loopback or private (`127.0.0.1,localhost` for local use and tests).",
    unset: "loopback, private and link-local addresses are refused to every session",
    secret: false,
  },
  {
    name: "WAYFARER_PUBLIC_URL",
    group: "service",
    what: "The base URL clients reach the service by (behind a proxy or a load balancer): the links it hands out (`connectUrl`, debug) use it.",
    unset: "the Host header of the request",
    secret: false,
  },
  {
    name: "WAYFARER_SERVER_CACHE",
    group: "service",
    what: "`off` turns the server cache of act, extract and observe answers off (entries live in the data folder's `cache/`).",
    unset: "on",
    secret: false,
  },
  {
    name: "WAYFARER_CACHE_MAX_ENTRY_BYTES",
    group: "service",
    what: "The server cache's largest entry, in bytes: a larger answer is served but not kept.",
    unset: "262144 (256 KiB)",
    secret: false,
  },
  {
    name: "WAYFARER_CACHE_MAX_BYTES",
    group: "service",
    what: "The server cache's total size, in bytes (the data folder's `cache/`, or Redis in shared mode): beyond it, the least recently used entries are deleted.",
    unset: "268435456 (256 MiB)",
    secret: false,
  },
  {
    name: "WAYFARER_CACHE_MAX_AGE_MS",
    group: "service",
    what: "How long a server cache entry is served after it was made; an older one is a miss and is deleted.",
    unset: "604800000 (7 days)",
    secret: false,
  },
  {
    name: "WAYFARER_RATE_LIMIT",
    group: "service",
    what: "Requests a minute per project's key on /v1 routes; beyond it, 429 with Retry-After.",
    unset: "1200",
    secret: false,
  },
  {
    name: "WAYFARER_TRUST_PROXY",
    group: "service",
    what: "Whose `X-Forwarded-Host` and `X-Forwarded-Proto` the links the service hands out follow: `true` for any peer, or comma-separated addresses and CIDR ranges of the proxies in front of it.",
    unset: "none: the links use the Host header the request came with",
    secret: false,
  },
  {
    name: "WAYFARER_MAX_SESSIONS",
    group: "service",
    what: "The most sessions (browsers) at once on this instance; a `/start` beyond it is placed on another instance with room (shared mode), else answers 503.",
    unset: "8",
    secret: false,
  },
  {
    name: "WAYFARER_WARM_BROWSERS",
    group: "service",
    what: "Blank browsers kept launched for the next `/start` (a session then starts in the time it takes to hand one over, not a Chromium launch), each serving one session and replaced in the background; they count against `WAYFARER_MAX_SESSIONS`. A `/start` with launch options or a `cdpUrl` launches fresh. While memory is short (under 512 MiB available, or a tenth of the machine's), none is kept. `0`: none, every `/start` launches.",
    unset:
      "one per two cores and per 4 GiB of memory, 2 at most (0 on a machine with one core or under 4 GiB)",
    secret: false,
  },
  {
    name: "WAYFARER_SESSION_IDLE_MS",
    group: "service",
    what: "A session with no operation for this long is ended.",
    unset: "300000 (5 minutes)",
    secret: false,
  },
  {
    name: "WAYFARER_PROJECT_MAX_SESSIONS",
    group: "service",
    what: "The most sessions one project (one key's) may hold at once, across every instance in shared mode; a `/start` beyond it answers 429 naming this variable.",
    unset:
      "`WAYFARER_MAX_SESSIONS` when one project is configured (or the made `default` key); half of it, rounded up, when `WAYFARER_API_KEYS` names several",
    secret: false,
  },
  {
    name: "WAYFARER_PROJECT_TOKENS_PER_MINUTE",
    group: "service",
    what: "Model tokens (prompt and completion) a project may spend per minute on the service's own model keys (calls that carry the caller's key do not count); past it, the next model call is not made and the operation answers 429 naming this variable. `0`: no limit.",
    unset: "no limit",
    secret: false,
  },
  {
    name: "WAYFARER_PROJECT_TOKENS_PER_DAY",
    group: "service",
    what: "The same per UTC day.",
    unset: "no limit",
    secret: false,
  },
  {
    name: "WAYFARER_KEEPALIVE_MAX_MS",
    group: "service",
    what: "The longest a `keepAlive` session lives (connected clients and operations do not extend it), and the longest `browserbaseSessionCreateParams.timeout` a `/start` may ask for (a longer one is a 400).",
    unset: "3600000 (1 hour)",
    secret: false,
  },
  {
    name: "WAYFARER_MAX_CHUNKS_PER_CALL",
    group: "service",
    what: "The most `wayfarer.maxChunksPerCall` (model calls per act, observe or extract on a huge page) a `/start` may ask for; more is a 400. A session that asks none gets the library's default within it.",
    unset: "8 (the library's default)",
    secret: false,
  },
  {
    name: "WAYFARER_MIN_OUTLINE_TOKEN_BUDGET",
    group: "service",
    what: "The least `wayfarer.outlineTokenBudget` a `/start` may ask for (a small budget cuts a page into more chunks, each a model call); less is a 400.",
    unset: "4000",
    secret: false,
  },
  {
    name: "WAYFARER_SESSION_TOKEN_CAP",
    group: "service",
    what: "The most model tokens one session may spend (its `tokenCap`): a session that asks none gets this one, and a `wayfarer.tokenCap` above it is a 400. `0`: no cap.",
    unset: "no cap",
    secret: false,
  },
  {
    name: "WAYFARER_MAX_VIEWPORT",
    group: "service",
    what: "The largest `browserSettings.viewport` (or `browser.launchOptions.viewport`) a `/start` may ask for, `WIDTHxHEIGHT` in CSS pixels; larger is a 400.",
    unset: "3840x2160",
    secret: false,
  },
  {
    name: "WAYFARER_MAX_PAGES",
    group: "service",
    what: "Pages (tabs, popups, targets a CDP client opens) a session's browser may have open at once; one past it is closed as it opens, and a line in the session's log says so.",
    unset: "10",
    secret: false,
  },
  {
    name: "WAYFARER_BROWSER_MAX_MEMORY_MB",
    group: "service",
    what: "Private memory (MB: RssAnon + RssShmem of all the browser's processes, Linux) a session's browser may hold; past it the watchdog ends the session, and its log and next call (404) say why. Twice what a few heavy pages hold (a blank browser ~70 MB, a web app ~300). At least 256; `0`: off.",
    unset: "2048",
    secret: false,
  },
  {
    name: "WAYFARER_SESSION_MAX_DISK_MB",
    group: "service",
    what: "Disk (MB) the files under a session's browser folder (profile, temporary files, downloads) may take; past it the session is ended the same way. Ordinary browsing's profile and cache stay far below the default; downloads are what reach it. At least 64; `0`: off.",
    unset: "1024",
    secret: false,
  },
  {
    name: "WAYFARER_METRICS_TOKEN",
    group: "service",
    what: "The token `GET /metrics` asks for, as `Authorization: Bearer <token>` (a wrong or missing one: 401); at least 16 characters. Set it wherever others reach the port: the metrics name your projects and their load (docs/guide/operations.md).",
    unset: "`/metrics` is open to whoever reaches the port",
    secret: true,
  },
  {
    name: "WAYFARER_WATCH_INTERVAL_MS",
    group: "service",
    what: "How often the watchdog measures the memory of every session's browser, in one pass for all, and (every fifth pass) their folders: a session may be past a limit this long, or five times as long for its disk, before it is ended.",
    unset: "2000",
    secret: false,
  },
  {
    name: "WAYFARER_STREAM_KEEPALIVE_MS",
    group: "service",
    what: "How often a streamed operation (`x-stream-response: true`) says it is still at work: an SSE comment (`: keep-alive: act: waiting for openai/gpt-4.1-mini, 10 s so far`) at every verbose level, and at verbose 1 or more a log frame while the model is being asked, so a proxy never drops a quiet stream. 50-60000.",
    unset: "5000",
    secret: false,
  },
  {
    name: "WAYFARER_BROWSER_USERS",
    group: "service",
    what: "Whom sessions' browsers run as: `auto` gives each its own uid (gid = uid, no passwd entry) from 2000000000-2000065535 when the service runs as root, else the service's user; `off`: the service's user even as root (root without Chromium's sandbox); `FIRST-LAST`: that uid range.",
    unset: "`auto`",
    secret: false,
  },
  {
    name: "WAYFARER_ALLOW_LAUNCH_OPTIONS",
    group: "service",
    what: "Comma-separated `browser.launchOptions` a `/start` may set although they reach the host: `executablePath`, `args`, `ignoreDefaultArgs`, `userDataDir`, `downloadsPath`. Even allowed, `args` that run a program beside the browser are a 400, and those that switch the sandbox off, open a debugging port or set a proxy are dropped (the session's log says so).",
    unset: "none: each is a 400 naming the field and this variable",
    secret: false,
  },
  {
    name: "WAYFARER_ALLOW_UNSANDBOXED_BROWSERS",
    group: "service",
    what: "`1`: start although this host would run strangers' browsers without Chromium's sandbox (as root: `WAYFARER_BROWSER_USERS=off`, a temp dir other users cannot traverse, uids that cannot be used; or as users of their own on a host with no user namespaces and no setuid `chrome-sandbox`). A page that breaks out of its renderer then has that user's rights. `/readyz` and the start-up line say so.",
    unset: "`0`: such a service refuses to start, saying why and what would give the sandbox",
    secret: false,
  },
  {
    name: "WAYFARER_ALLOW_CALLER_CDP",
    group: "service",
    what: "`1`: a `/start` may attach its session to the caller's own browser (`browser.cdpUrl`), at an address the egress rule lets through (loopback and private ones only if `WAYFARER_ALLOW_HOSTS` lists them).",
    unset: "`0`: `browser.cdpUrl` is a 400 naming this variable",
    secret: false,
  },
  {
    name: "REDIS_URL",
    group: "service",
    what: "Shared mode: several instances keep their session registry, server cache, rate-limit counters and session-ended events in this Redis (`redis://[:password@]host:port[/db]`, or `rediss://`), and any instance answers for any session. `WAYFARER_API_KEYS` is then required, the same on every instance.",
    unset: "embedded: state lives in the process and the data folder",
    secret: true,
  },
  {
    name: "WAYFARER_INTERNAL_URL",
    group: "service",
    what: "Shared mode: the base URL the other instances reach this one by, to forward requests for its sessions.",
    unset: "`http://HOST:PORT` as bound (the machine's host name when HOST is `0.0.0.0` or `::`)",
    secret: false,
  },
  {
    name: "WAYFARER_INSTANCE_TTL_MS",
    group: "service",
    what: "Shared mode: an instance that has not renewed its entry in Redis for this long is gone; its sessions answer 410 from the others. It renews four times per period.",
    unset: "10000",
    secret: false,
  },
  {
    name: "OPENAI_API_KEY",
    group: "model",
    what: "The key of `openai/…` models.",
    secret: true,
  },
  {
    name: "ANTHROPIC_API_KEY",
    group: "model",
    what: "The key of `anthropic/…` models.",
    secret: true,
  },
  {
    name: "GOOGLE_GENERATIVE_AI_API_KEY",
    group: "model",
    what: "The key of `google/…` models (Gemini API).",
    secret: true,
  },
  {
    name: "GEMINI_API_KEY",
    group: "model",
    what: "Read only to keep it out of everything written (the Gemini API's other usual name).",
    secret: true,
  },
  {
    name: "MICROSOFT_API_KEY",
    group: "model",
    what: "The key of `microsoft/…` models (an OpenAI-compatible endpoint; `baseURL` is required).",
    secret: true,
  },
  {
    name: "AZURE_API_KEY",
    group: "model",
    what: 'The key of `provider: "azure"` models without `auth`.',
    secret: true,
  },
  {
    name: "AZURE_RESOURCE_NAME",
    group: "model",
    what: "The Azure OpenAI resource, when `providerOptions.azure` names neither `resourceName` nor `baseURL`.",
    secret: false,
  },
  {
    name: "AWS_ACCESS_KEY_ID",
    group: "model",
    what: "With `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`): the credentials of `bedrock/…` models.",
    secret: false,
  },
  {
    name: "AWS_SECRET_ACCESS_KEY",
    group: "model",
    what: "The secret half of the Bedrock credentials.",
    secret: true,
  },
  {
    name: "AWS_SESSION_TOKEN",
    group: "model",
    what: "The session token of temporary Bedrock credentials.",
    secret: true,
  },
  {
    name: "AWS_BEARER_TOKEN_BEDROCK",
    group: "model",
    what: "A Bedrock API key, instead of the access key pair (`model.apiKey` wins).",
    secret: true,
  },
  {
    name: "AWS_REGION",
    group: "model",
    what: "The Bedrock region.",
    unset: "`AWS_DEFAULT_REGION`, else us-east-1",
    secret: false,
  },
  {
    name: "AWS_DEFAULT_REGION",
    group: "model",
    what: "The Bedrock region when `AWS_REGION` is unset.",
    unset: "us-east-1",
    secret: false,
  },
  {
    name: "OPENAI_BASE_URL",
    group: "model",
    what: "Where `openai/…` models are asked when the configuration names no `baseURL`: a proxy, an OpenAI-compatible server, or the model kit's `serveModelKit` in tests. The key (`OPENAI_API_KEY`) goes there. On the service it is the operator's endpoint: only calls without an endpoint of the caller's go there.",
    unset: "https://api.openai.com/v1",
    secret: false,
  },
  {
    name: "ANTHROPIC_BASE_URL",
    group: "model",
    what: "Where `anthropic/…` models are asked when the configuration names no `baseURL` (`ANTHROPIC_API_KEY` goes there).",
    unset: "https://api.anthropic.com/v1",
    secret: false,
  },
  {
    name: "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
    group: "model",
    what: "Where `bedrock/…` models are asked when the configuration names no `baseURL`.",
    unset: "`AWS_ENDPOINT_URL`, else https://bedrock-runtime.REGION.amazonaws.com",
    secret: false,
  },
  {
    name: "AWS_ENDPOINT_URL",
    group: "model",
    what: "AWS's endpoint for every service; read for Bedrock when `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` is unset.",
    unset: "https://bedrock-runtime.REGION.amazonaws.com",
    secret: false,
  },
  {
    name: "CHROME_PATH",
    group: "browser",
    what: "The browser binary, when `localBrowserLaunchOptions.executablePath` is not given.",
    unset: "the Chromium of `@sparticuz/chromium` (Linux x64), then a system Chromium or Chrome",
    secret: false,
  },
  {
    name: "WAYFARER_CONTEXT_KEY",
    group: "browser",
    what: "The key a context file is sealed with (`localBrowserLaunchOptions.context`): 64 hex characters (`openssl rand -hex 32`). The file opens only where this key is set, so it may be kept in a repository.",
    secret: true,
  },
  {
    name: "WAYFARER_BROWSER_PROFILE",
    group: "browser",
    what: '`"local"` (multi-process, site isolation) or `"serverless"` (one process, the serverless pack\'s flags).',
    unset: "`serverless` on Vercel and Lambda, `local` elsewhere",
    secret: false,
  },
  {
    name: "AWS_LAMBDA_FUNCTION_NAME",
    group: "browser",
    what: "Set by Lambda: the browser takes the serverless profile.",
    secret: false,
  },
  {
    name: "AWS_EXECUTION_ENV",
    group: "browser",
    what: "Set by Lambda: the browser takes the serverless profile.",
    secret: false,
  },
  {
    name: "LD_LIBRARY_PATH",
    group: "browser",
    what: "Kept, after the libraries of the serverless Chromium pack, in that browser's environment.",
    secret: false,
  },
  {
    name: "PROGRAMFILES",
    group: "browser",
    what: "Windows: where Chrome is looked for.",
    secret: false,
  },
  {
    name: "LOCALAPPDATA",
    group: "browser",
    what: "Windows: where a per-user Chrome is looked for.",
    secret: false,
  },
  {
    name: "WAYFARER_CACHE_IGNORE_PARAMS",
    group: "cache",
    what: "Comma-separated query parameters the action cache leaves out of its keys (besides utm_*, gclid, fbclid and other tracking parameters).",
    secret: false,
  },
  {
    name: "WAYFARER_SEARXNG_URL",
    group: "agent",
    what: "A SearXNG instance (JSON format enabled) for the agent's `search` tool (`useSearch: true`); wins over Brave.",
    secret: false,
  },
  {
    name: "BRAVE_SEARCH_API_KEY",
    group: "agent",
    what: "A Brave Search API key for the agent's `search` tool.",
    secret: true,
  },
  {
    name: "WAYFARER_API_KEY",
    group: "remote",
    what: 'The service API key of `env: "REMOTE"` (the `apiKey` option wins); the job picks the remote environment when it is set.',
    secret: true,
  },
  {
    name: "WAYFARER_API_URL",
    group: "remote",
    what: 'The service\'s base URL for `env: "REMOTE"` (`/v1` is appended when absent).',
    unset:
      "`http://127.0.0.1:3000/v1` (a service on this machine); on a deployment (Vercel, AWS Lambda) a clear error, since that address is the function's own",
    secret: false,
  },
  {
    name: "BROWSERBASE_API_KEY",
    group: "remote",
    what: "Kept out of everything written (existing v3 configurations carry it). With `BB_ENV=local` and no `WAYFARER_API_KEYS`, the service's API key of project `local` (any value, loopback `HOST` only; docs/guide/clients.md).",
    secret: true,
  },
  {
    name: "WAYFARER_MCP_MODEL",
    group: "mcp",
    what: "The model of the MCP server's act, extract, observe and agent tools, as `\"provider/model\"` (its key from the provider's variable). `--model` wins.",
    unset: "those four tools are not listed; the others need no model",
    secret: false,
  },
  {
    name: "WAYFARER_MCP_HEADFUL",
    group: "mcp",
    what: "`true`: the MCP server's local browser shows its window (needs a display). `--headful` too.",
    unset: "headless",
    secret: false,
  },
  {
    name: "WAYFARER_MCP_EGRESS",
    group: "mcp",
    what: "`true`: every request of the MCP server's local browser is guarded by the address rule (loopback, private and link-local refused). `--egress` too.",
    unset: "off, as for the library on this machine",
    secret: false,
  },
  {
    name: "WAYFARER_MCP_BROWSER_ARGS",
    group: "mcp",
    what: "Extra Chromium switches of the MCP server's local browser: a JSON array of strings, or switches separated by spaces. `--browser-arg`, repeated, wins.",
    unset: "none",
    secret: false,
  },
  {
    name: "WAYFARER_MCP_TOOL_TIMEOUT_MS",
    group: "mcp",
    what: "The most one MCP tool call may take, in ms (1000–600000); past it the call answers a tool error. `--tool-timeout-ms` wins.",
    unset: "30000",
    secret: false,
  },
  {
    name: "WAYFARER_MCP_IDLE_MS",
    group: "mcp",
    what: "The MCP server ends its browser (or lets go of its service session) after this long without a tool call, in ms: `0` never, else 60000–86400000; the next call starts a new one and says so. `--idle-ms` wins.",
    unset: "600000",
    secret: false,
  },
  {
    name: "WAYFARER_MCP_MAX_PAGES",
    group: "mcp",
    what: "The most pages (tabs, popups) the MCP server's local browser may have open at once (1–1000), as `WAYFARER_MAX_PAGES` caps a service's session: one past it is closed as it opens, and the log says so. `--max-pages` wins.",
    unset: "10",
    secret: false,
  },
  {
    name: "WAYFARER_MCP_AGENT_MAX_STEPS",
    group: "mcp",
    what: "The MCP agent tool's steps when a call names none (1–100). `--agent-max-steps` wins.",
    unset: "20",
    secret: false,
  },
  {
    name: "WAYFARER_MCP_VERBOSE",
    group: "mcp",
    what: "What the MCP server logs, as JSON lines on stderr: `0` errors, `1` info, `2` debug. `--verbose` wins.",
    unset: "0",
    secret: false,
  },
  {
    name: "WAYFARER_MCP_VAR_<NAME>",
    group: "mcp",
    what: "The value of `%NAME%` for the MCP server's tools. The calling model sees the name only; answers and logs show `%NAME%`. Needs `WAYFARER_MCP_ORIGINS_<NAME>`.",
    secret: true,
  },
  {
    name: "WAYFARER_MCP_ORIGINS_<NAME>",
    group: "mcp",
    what: "Comma-separated origins where `WAYFARER_MCP_VAR_<NAME>` may be typed (`https://login.example.com`); anywhere else typing it is refused.",
    unset: "required with its value: the server does not start without it",
    secret: false,
  },
];

/** The variables whose values are credentials (families such as `JOB_VAR_<NAME>` excluded). */
export const SECRET_ENV_VARS: readonly string[] = ENV_VARS.filter(
  (v) => v.secret && !v.name.includes("<"),
).map((v) => v.name);
