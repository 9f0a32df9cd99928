/** The page's calls to the HTTP API, with the server's token when it has one. */
import type { ApiError } from "./shared/api.js";

/**
 * The token of a server bound beyond loopback, from the printed URL (`/?token=…`), which it is then
 * taken out of. It is kept in this tab's sessionStorage, which only this origin (scheme, host and
 * port) reads, and sent as a bearer header: never as a cookie, which every port of the host gets.
 */
const token = ((): string | undefined => {
  const at = new URLSearchParams(location.search);
  const given = at.get("token") ?? undefined;
  if (given !== undefined) {
    at.delete("token");
    history.replaceState(null, "", `${location.pathname}${at.toString() ? `?${at}` : ""}${location.hash}`);
  }
  try {
    if (given !== undefined) sessionStorage.setItem("vault-rag-token", given);
    return sessionStorage.getItem("vault-rag-token") ?? undefined;
  } catch {
    return given; // storage refused (a browser's setting): this page's life long
  }
})();

/** Headers with the token, when there is one. */
export const withToken = (h: Record<string, string>) => (token ? { ...h, authorization: `Bearer ${token}` } : h);

/** Calls the API; a JSON error becomes an Error carrying the server's message and code. */
export async function api<T>(path: string): Promise<T> {
  const res = await fetch(path, { headers: withToken({ accept: "application/json" }) });
  const body = await res.json().catch(() => ({ error: `vault-rag: ${res.status} ${res.statusText}`, code: "http" }));
  if (!res.ok) throw Object.assign(new Error((body as ApiError).error), { code: (body as ApiError).code });
  return body as T;
}
