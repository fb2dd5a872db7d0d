// Retries as the interface's errors section prescribes, as a fetch wrapper: 409
// `idempotency_in_progress`, 429 and 5xx are transient, sent again with exponential backoff from
// about a second with jitter, honouring Retry-After. A request the server may have acted on is
// repeated only when that is safe (an idempotent method or an Idempotency-Key); a refused
// connection never reached it and is always retried. openapi-fetch has no retry policy of its own.

export interface RetryPolicy {
  maxAttempts: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, firstDelayMs: 1000, maxDelayMs: 30_000 };
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

export type Sleep = (ms: number) => Promise<void>;
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function delayMs(policy: RetryPolicy, attempt: number, retryAfterMs: number | null): number {
  if (retryAfterMs !== null) return Math.min(retryAfterMs, policy.maxDelayMs * 4) + Math.random() * 250;
  const step = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (attempt - 1));
  return step / 2 + Math.random() * (step / 2); // "equal jitter": half fixed, half random
}

/** Retry-After as delta-seconds or an HTTP date (RFC 9110 10.2.3), in milliseconds; null when absent. */
export function retryAfterMs(response: Response, now: () => number = Date.now): number | null {
  const value = response.headers.get("Retry-After");
  if (value === null) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const when = Date.parse(value);
  return Number.isNaN(when) ? null : Math.max(0, when - now());
}

async function isTransient(response: Response): Promise<boolean> {
  if (response.status === 429 || response.status >= 500) return true;
  if (response.status !== 409) return false;
  try {
    const body = (await response.clone().json()) as { error?: { code?: string } };
    return body.error?.code === "idempotency_in_progress";
  } catch {
    return false;
  }
}

function safeToRepeat(request: Request): boolean {
  return IDEMPOTENT.has(request.method) || request.headers.has("Idempotency-Key");
}

function notSent(error: unknown): boolean {
  const code = (error as { cause?: { code?: string } })?.cause?.code;
  return code === "ECONNREFUSED" || code === "UND_ERR_CONNECT_TIMEOUT";
}

export function retryingFetch(
  inner: typeof fetch = globalThis.fetch,
  policy: RetryPolicy = DEFAULT_RETRY,
  sleep: Sleep = realSleep,
): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= policy.maxAttempts;
      let response: Response;
      try {
        response = await inner(request.clone());
      } catch (error) {
        if (last || !(notSent(error) || safeToRepeat(request))) throw error;
        await sleep(delayMs(policy, attempt, null));
        continue;
      }
      const mayRepeat = response.status === 409 || response.status === 429 || safeToRepeat(request);
      if (last || !mayRepeat || !(await isTransient(response))) return response;
      await response.body?.cancel();
      await sleep(delayMs(policy, attempt, retryAfterMs(response)));
    }
  };
}
