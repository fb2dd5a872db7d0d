// The typed client: paths, parameters and bodies from infra/openapi.json (schema.d.ts is generated
// by `npm run gen` before every build and test), so the console cannot drift from the API.
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./schema";

export type Schemas = components["schemas"];
export type Api = ReturnType<typeof createApi>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A client whose every request carries the bearer `token()` returns (read at each call). */
export function createApi(token: () => string | null, baseUrl = "", fetcher?: typeof fetch) {
  const client = createClient<paths>({ baseUrl, ...(fetcher ? { fetch: fetcher } : {}) });
  const auth: Middleware = {
    onRequest({ request }) {
      const value = token();
      if (value) request.headers.set("Authorization", `Bearer ${value}`);
      return request;
    },
  };
  client.use(auth);
  return client;
}

type Result<T> = { data?: T; error?: unknown; response: Response };

/** The data of a call, or an ApiError with the API's error code and message. */
export async function must<T>(call: Promise<Result<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (data !== undefined && response.ok) return data;
  const body = error as { error?: { code?: string; message?: string } } | undefined;
  throw new ApiError(
    response.status,
    body?.error?.code ?? "http_error",
    body?.error?.message ?? `The API answered ${response.status}.`,
  );
}
