import { describe, expect, it } from "vitest";
import { ApiError, createApi, must } from "../src/api/client";
import { messageDeliveries } from "../src/pages/Message";
import { BULK_CSV_MAX_CHARS, runBulk } from "../src/pages/More";

function recording(status: number, body: unknown) {
  const seen: Request[] = [];
  const fetcher = (async (input: Request | string | URL, init?: RequestInit) => {
    seen.push(input instanceof Request ? input : new Request(input, init));
    return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  }) as typeof fetch;
  return { seen, fetcher };
}

describe("the typed client", () => {
  it("sends the session's bearer token and the typed query", async () => {
    const { seen, fetcher } = recording(200, { items: [], has_more: false, next_cursor: null, total_count: 0 });
    let token = "first";
    const api = createApi(() => token, "http://api.test", fetcher);
    await must(api.GET("/v3/events", { params: { query: { event: "bounced", recipient: "a@example.com", limit: 5 } } }));
    token = "second"; // read at each call: a switch of environment applies to the next request
    await must(api.GET("/v3/usage"));
    const [first, second] = seen;
    expect(first?.headers.get("Authorization")).toBe("Bearer first");
    expect(new URL(first!.url).searchParams.get("event")).toBe("bounced");
    expect(new URL(first!.url).searchParams.get("limit")).toBe("5");
    expect(new URL(first!.url).pathname).toBe("/v3/events");
    expect(second?.headers.get("Authorization")).toBe("Bearer second");
  });

  it("fills path parameters", async () => {
    const { seen, fetcher } = recording(200, { id: "msg_1" });
    const api = createApi(() => "t", "http://api.test", fetcher);
    await must(api.GET("/v3/messages/{id}", { params: { path: { id: "msg_1/../x" } } }));
    expect(new URL(seen[0]!.url).pathname).toBe("/v3/messages/msg_1%2F..%2Fx");
  });

  it("turns the API's error body into an ApiError", async () => {
    const { fetcher } = recording(403, { error: { code: "test_key_forbidden", message: "Live only." }, request_id: "r" });
    const api = createApi(() => "t", "http://api.test", fetcher);
    const failure = await must(api.GET("/v3/domains")).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 403, code: "test_key_forbidden", message: "Live only." });
  });

  it("reports a body that is not the API's as the status", async () => {
    const fetcher = (async () => new Response("bad gateway", { status: 502 })) as typeof fetch;
    const api = createApi(() => "t", "http://api.test", fetcher);
    await expect(must(api.GET("/v3/usage"))).rejects.toMatchObject({ status: 502, code: "http_error" });
  });
});

describe("a message's webhook deliveries", () => {
  it("asks every endpoint since the message, follows cursors and keeps the message's own", async () => {
    const seen: URL[] = [];
    const delivery = (id: string, message: string, at: string) => ({
      id, endpoint_id: "wh_1", url: "https://h.test", event_id: "e", event: "delivered", message_id: message,
      status: "succeeded", manual: false, resent_from: null, created_at: at, next_attempt_at: null, attempts: [],
    });
    const fetcher = (async (input: Request | string | URL, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(input, init);
      const url = new URL(request.url);
      seen.push(url);
      const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { "Content-Type": "application/json" } });
      if (url.pathname === "/v3/webhooks") return json({ items: [{ id: "wh_1" }, { id: "wh_2" }], has_more: false });
      if (url.pathname === "/v3/webhooks/wh_1/deliveries" && !url.searchParams.get("cursor"))
        return json({ deliveries: [delivery("d2", "msg_1", "2026-11-28T00:00:02Z"), delivery("dx", "msg_9", "2026-11-28T00:00:02Z")], has_more: true, next_cursor: "c1" });
      if (url.pathname === "/v3/webhooks/wh_1/deliveries") return json({ deliveries: [delivery("d1", "msg_1", "2026-11-28T00:00:01Z")], has_more: false, next_cursor: null });
      return json({ deliveries: [delivery("d3", "msg_1", "2026-11-28T00:00:03Z")], has_more: false, next_cursor: null });
    }) as typeof fetch;
    const api = createApi(() => "t", "http://api.test", fetcher);
    const found = await messageDeliveries(api, "msg_1", "2026-11-28T00:00:00Z");
    expect(found.map((d) => d.id)).toEqual(["d1", "d2", "d3"]);
    const second = seen.find((u) => u.searchParams.get("cursor") === "c1");
    expect(second?.searchParams.get("since")).toBe("2026-11-28T00:00:00Z");
    expect(seen.filter((u) => u.pathname.endsWith("/deliveries"))).toHaveLength(3);
  });
});

describe("a bulk verification from a CSV file", () => {
  it("posts the file as csv and polls the job until it ends", async () => {
    const bodies: unknown[] = [];
    let polls = 0;
    const job = (status: string, processed: number) => ({
      job_id: "vjob_1", status, filename: "leads.csv", total_count: 2, processed_count: processed, summary: { valid: processed },
      created_at: "2026-11-28T00:00:00Z", completed_at: null, webhook_url: null, error_message: null, can_retry: false, skipped: 1,
      errors: [{ row: 3, email: "", reason: "missing_email" }],
    });
    const fetcher = (async (input: Request | string | URL, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(input, init);
      const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
      if (request.method === "POST") {
        bodies.push(await request.json());
        return json(202, { job_id: "vjob_1", status: "pending", total_count: 0, message: "queued" });
      }
      polls += 1;
      return json(200, polls < 3 ? job("processing", polls - 1) : job("completed", 2));
    }) as typeof fetch;
    const api = createApi(() => "t", "http://api.test", fetcher);
    const seen: string[] = [];
    const file = new File(["email\na@example.com\n\nb@example.com\n"], "leads.csv", { type: "text/csv" });
    const done = await runBulk(api, file, (j) => seen.push(`${j.status}:${j.processed_count}`), 1);
    expect(bodies).toEqual([{ csv: "email\na@example.com\n\nb@example.com\n", filename: "leads.csv" }]);
    expect(seen).toEqual(["processing:0", "processing:1", "completed:2"]);
    expect(done.summary.valid).toBe(2);
  });

  it("refuses a file too large for a request before sending it", async () => {
    const fetcher = (async () => new Response("{}", { status: 500 })) as typeof fetch;
    const api = createApi(() => "t", "http://api.test", fetcher);
    const file = new File(["x".repeat(BULK_CSV_MAX_CHARS + 1)], "big.csv");
    await expect(runBulk(api, file, () => {})).rejects.toThrow(/presigned upload/);
  });
});
