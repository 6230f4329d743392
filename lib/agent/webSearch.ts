/**
 * The agent's web search, behind one small interface. The backend is chosen by environment
 * variables: WAYFARER_SEARXNG_URL (a SearXNG instance with its JSON format enabled) or
 * BRAVE_SEARCH_API_KEY (the Brave Search API). SearXNG wins when both are set.
 */
import { MissingEnvironmentVariableError, ServiceError } from "../errors.js";

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchBackend {
  name: string;
  search(query: string, signal: AbortSignal): Promise<SearchResult[]>;
  /** Values to keep out of logs and results (an API key). */
  secrets: string[];
}

const MAX_RESULTS = 8;
const BRAVE_URL = "https://api.search.brave.com/res/v1/web/search";

export function searchBackendFromEnv(env: NodeJS.ProcessEnv = process.env): SearchBackend {
  const searxng = env.WAYFARER_SEARXNG_URL?.trim();
  if (searxng) return searxngBackend(searxng);
  const braveKey = env.BRAVE_SEARCH_API_KEY?.trim();
  if (braveKey) return braveBackend(braveKey);
  throw new MissingEnvironmentVariableError(
    "WAYFARER_SEARXNG_URL or BRAVE_SEARCH_API_KEY",
    "the agent's search tool (useSearch: true)",
  );
}

function searxngBackend(base: string): SearchBackend {
  let root: URL;
  try {
    root = new URL(base);
  } catch {
    throw new ServiceError(
      `WAYFARER_SEARXNG_URL is "${base}"; expected the URL of a SearXNG instance, such as http://127.0.0.1:8888`,
    );
  }
  return {
    name: "SearXNG",
    secrets: root.password ? [root.password] : [],
    async search(query, signal) {
      const url = new URL("search", root.href.endsWith("/") ? root : `${root.href}/`);
      url.searchParams.set("q", query);
      url.searchParams.set("format", "json");
      const body = (await getJson(url, {}, signal, "SearXNG")) as {
        results?: { title?: string; url?: string; content?: string }[];
      };
      return (body.results ?? []).slice(0, MAX_RESULTS).map((r) => ({
        title: r.title ?? "",
        url: r.url ?? "",
        snippet: r.content ?? "",
      }));
    },
  };
}

function braveBackend(key: string): SearchBackend {
  return {
    name: "Brave Search",
    secrets: [key],
    async search(query, signal) {
      const url = new URL(BRAVE_URL);
      url.searchParams.set("q", query);
      url.searchParams.set("count", String(MAX_RESULTS));
      const body = (await getJson(
        url,
        { "x-subscription-token": key, accept: "application/json" },
        signal,
        "Brave Search",
      )) as { web?: { results?: { title?: string; url?: string; description?: string }[] } };
      return (body.web?.results ?? []).slice(0, MAX_RESULTS).map((r) => ({
        title: r.title ?? "",
        url: r.url ?? "",
        snippet: r.description ?? "",
      }));
    },
  };
}

async function getJson(
  url: URL,
  headers: Record<string, string>,
  signal: AbortSignal,
  name: string,
): Promise<unknown> {
  const response = await fetch(url, { headers, signal });
  if (!response.ok) {
    const detail = (await response.text().catch(() => "")).slice(0, 300);
    throw new ServiceError(
      `${name} answered HTTP ${response.status}${detail ? `: ${detail}` : ""}`,
    );
  }
  try {
    return await response.json();
  } catch {
    throw new ServiceError(`${name} did not answer JSON (is its JSON format enabled?)`);
  }
}
