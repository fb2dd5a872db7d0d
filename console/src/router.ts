import { useEffect, useState } from "preact/hooks";

// Hash routes (#/activity, #/messages/msg_1): the runtime and S3 serve one index.html, and a
// deep link needs no server-side rewrite.
export interface Route {
  page: string;
  id?: string;
  query: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const [path = "", query = ""] = hash.replace(/^#\/?/, "").split("?", 2);
  const [page = "", id] = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { page: page || "overview", ...(id ? { id } : {}), query: new URLSearchParams(query) };
}

export function href(page: string, id?: string): string {
  return `#/${page}${id ? `/${encodeURIComponent(id)}` : ""}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return route;
}
