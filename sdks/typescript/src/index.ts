// Postline's TypeScript SDK: `Postline` for sends, events and retries; `Postline.api`, an
// openapi-fetch client typed by the paths generated from the service's OpenAPI document, for every
// route; `verifyEd25519` and `verifyHmac` for what a webhook receives.
import createClient, { type Client } from "openapi-fetch";

import type { components, operations, paths } from "./generated/schema.js";
import { DEFAULT_RETRY, type RetryPolicy, type Sleep, realSleep, retryAfterMs, retryingFetch } from "./retries.js";

export type { components, operations, paths } from "./generated/schema.js";
export { DEFAULT_RETRY, type RetryPolicy, type Sleep, retryingFetch } from "./retries.js";
export { ED25519_HEADER, HMAC_HEADER, WebhookVerificationError, publicKeys, verifyEd25519, verifyHmac } from "./webhooks.js";

type Schemas = components["schemas"];
export type SendRequest = Schemas["SendRequest"];
export type BatchSendRequest = Schemas["BatchSendRequest"];
export type MessageAccepted = Schemas["MessageAccepted"];
export type ListSendResult = Schemas["ListSendResult"];
export type BatchSendResult = Schemas["BatchSendResult"];
export type EventView = Schemas["EventView"];
export type ScheduledMessageCancellation = Schemas["ScheduledMessageCancellation"];
export type EventFilters = Omit<NonNullable<operations["ListEvents"]["parameters"]["query"]>, "cursor" | "limit">;

export const VERSION = "0.1.0";

export interface PostlineOptions {
  /** Defaults to the POSTLINE_API_KEY variable. */
  apiKey?: string;
  /** Defaults to the POSTLINE_BASE_URL variable. */
  baseUrl?: string;
  /** Act for a subaccount (a parent's full_access key). */
  onBehalfOf?: string;
  retry?: Partial<RetryPolicy>;
  /** How the client waits between attempts (a test or a scheduler may replace it). */
  sleep?: Sleep;
  fetch?: typeof fetch;
}

/** A failed call: branch on `code` (the interface's error.code), not on the message. */
export class PostlineError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly retryAfterMs: number | null,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = "PostlineError";
  }
}

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export class Postline {
  readonly api: Client<paths>;

  constructor(options: PostlineOptions = {}) {
    const apiKey = options.apiKey ?? process.env.POSTLINE_API_KEY;
    const baseUrl = options.baseUrl ?? process.env.POSTLINE_BASE_URL;
    if (!apiKey || !baseUrl) {
      throw new Error("an API key and the API's base URL are needed (or POSTLINE_API_KEY, POSTLINE_BASE_URL)");
    }
    const headers: Record<string, string> = { Authorization: `Bearer ${apiKey}`, "User-Agent": `postline-typescript/${VERSION}` };
    if (options.onBehalfOf) headers["On-Behalf-Of"] = options.onBehalfOf;
    const policy = { ...DEFAULT_RETRY, ...options.retry };
    this.api = createClient<paths>({
      baseUrl: baseUrl.replace(/\/$/, ""),
      headers,
      fetch: retryingFetch(options.fetch ?? globalThis.fetch, policy, options.sleep ?? realSleep),
    });
  }

  /** POST /v3/messages. A retry never sends twice: the Idempotency-Key defaults to a fresh UUID
   * that every attempt of this call shares. */
  async send(message: SendRequest, options: { idempotencyKey?: string } = {}): Promise<MessageAccepted> {
    const key = options.idempotencyKey ?? crypto.randomUUID();
    const reply = ok(await this.api.POST("/v3/messages", { body: message, params: { header: { "idempotency-key": key } } }));
    if (!("id" in reply)) throw new TypeError("a list send answers ListSendResult: use sendList");
    return reply;
  }

  /** POST /v3/messages with `list_id`: one send to every member of a mailing list. */
  async sendList(message: SendRequest, options: { idempotencyKey?: string } = {}): Promise<ListSendResult> {
    const key = options.idempotencyKey ?? crypto.randomUUID();
    const reply = ok(await this.api.POST("/v3/messages", { body: message, params: { header: { "idempotency-key": key } } }));
    if ("id" in reply) throw new TypeError("a send without list_id answers MessageAccepted: use send");
    return reply;
  }

  /** POST /v3/messages.batch, with an Idempotency-Key as `send` has. */
  async sendBatch(batch: BatchSendRequest, options: { idempotencyKey?: string } = {}): Promise<BatchSendResult> {
    const key = options.idempotencyKey ?? crypto.randomUUID();
    const reply = ok(await this.api.POST("/v3/messages.batch", { body: batch, params: { header: { "idempotency-key": key } } }));
    if (!("batch_id" in reply)) throw new TypeError("a batch to a list answers ListSendResult");
    return reply;
  }

  /** DELETE /v3/messages/{id}: cancels a scheduled send that has not started. */
  async cancel(id: string): Promise<ScheduledMessageCancellation> {
    return ok(await this.api.DELETE("/v3/messages/{id}", { params: { path: { id } } }));
  }

  /** Every event matching the filters, newest first, fetching pages by cursor as it goes. */
  async *events(filters: EventFilters = {}, pageSize = 100): AsyncGenerator<EventView> {
    let cursor: string | undefined;
    for (;;) {
      const page = ok(await this.api.GET("/v3/events", { params: { query: { ...filters, limit: pageSize, cursor } } }));
      yield* page.items;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }
}

function ok<T>(result: Result<T>): T {
  if (result.response.ok && result.data !== undefined) return result.data;
  const body = result.error as { error?: { code?: string; message?: string }; request_id?: string } | undefined;
  throw new PostlineError(
    result.response.status,
    body?.error?.code ?? "unexpected_response",
    body?.error?.message ?? String(result.error ?? result.response.statusText),
    body?.request_id ?? null,
    retryAfterMs(result.response),
  );
}
