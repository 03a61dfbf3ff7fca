// The API key lives in this browser tab's session only (sessionStorage): never in
// localStorage, a cookie or the URL, so closing the tab forgets it.
const KEY = "brain.apiKey";

export function getKey() {
  return sessionStorage.getItem(KEY) || "";
}

export function setKey(key) {
  if (key) sessionStorage.setItem(KEY, key.trim());
  else sessionStorage.removeItem(KEY);
}

export function authHeaders(key = getKey()) {
  return key ? { Authorization: `Bearer ${key}` } : {};
}

// The key was refused: wrong, malformed or revoked (HTTP 401), or missing where one is needed.
export class KeyRefused extends Error {}

// One GraphQL request with the session's key; resolves to the `data` object or throws
// an Error whose message is the server's (a KeyRefused for a refused key).
export async function gql(query, variables = {}, key = getKey()) {
  const res = await fetch("/graphql", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...authHeaders(key) },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json();
  if (res.status === 401) throw new KeyRefused(body.errors?.[0]?.message || "API key refused");
  if (body.errors && body.errors.length) throw new Error(body.errors[0].message);
  return body.data;
}
