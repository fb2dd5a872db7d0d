// The TypeScript SDK against the embedded runtime (started by tests/sdks/test_typescript_sdk.py,
// which passes its URL and fresh keys): what a user of it does first.
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";

import { Postline, PostlineError, publicKeys, verifyEd25519, verifyHmac } from "../src/index.js";

const baseUrl = required("POSTLINE_BASE_URL");
const DELIVERED = "delivered@simulator.postline.dev";
const message = (fields: object = {}) => ({ from: "hello@example.com", to: [DELIVERED], subject: "Hi", text: "Hello", ...fields });

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is set by tests/sdks/test_typescript_sdk.py`);
  return value;
}

async function local(path: string, body: object): Promise<{ now?: string }> {
  const response = await fetch(`${baseUrl}/_local/${path}`, { method: "POST", body: JSON.stringify(body) });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as { now?: string };
}

const drain = () => local("drain", { timeout: 30 });
const runtimeNow = async () => Date.parse((await local("clock/advance", { seconds: 0 })).now ?? "") / 1000;

test("send, then iterate its events to the end by cursor", async () => {
  const client = new Postline({ apiKey: required("POSTLINE_TEST_KEY"), baseUrl });
  const tag = `ts-${Date.now()}`;
  const sent = [await client.send(message({ tags: [tag] })), await client.send(message({ tags: [tag] }))];
  await drain();
  const events = [];
  for await (const event of client.events({ tag }, 2)) events.push(event);
  assert.deepEqual(new Set(events.map((event) => event.message_id)), new Set(sent.map((accepted) => accepted.id)));
  assert.deepEqual(events.map((event) => event.type).sort(), ["delivered", "delivered", "queued", "queued", "sent", "sent"]);
});

test("a send repeated with its Idempotency-Key is one message", async () => {
  const client = new Postline({ apiKey: required("POSTLINE_TEST_KEY"), baseUrl });
  const key = `order-${Date.now()}`;
  const first = await client.send(message(), { idempotencyKey: key });
  assert.equal((await client.send(message(), { idempotencyKey: key })).id, first.id);
});

test("batch, scheduled send and cancel", async () => {
  const client = new Postline({ apiKey: required("POSTLINE_TEST_KEY"), baseUrl });
  const batch = await client.sendBatch({ from: "hello@example.com", subject: "Hi", text: "x", recipients: [{ to: "a@example.com" }, { to: "b@example.com" }] });
  assert.equal(batch.accepted, 2);
  const later = new Date((await runtimeNow()) * 1000 + 2 * 3600_000).toISOString();
  const scheduled = await client.send(message({ send_at: later }));
  assert.equal((await client.cancel(scheduled.id)).status, "cancelled");
  await assert.rejects(client.cancel(scheduled.id), (error: PostlineError) => error.status === 400 && error.code === "validation_error");
});

test("a 429 waits out Retry-After, and the same call then succeeds", async () => {
  const waits: number[] = [];
  const sleep = async (ms: number) => {
    waits.push(ms);
    await local("clock/advance", { seconds: ms / 1000 });
  };
  const client = new Postline({ apiKey: required("POSTLINE_LIMITED_KEY"), baseUrl, sleep });
  const ids = new Set<string>();
  for (let n = 0; n < 4; n++) ids.add((await client.send(message())).id);
  assert.equal(ids.size, 4);
  assert.equal(waits.length, 1);
  assert.ok(waits[0]! > 0 && waits[0]! <= 61_000);
  const impatient = new Postline({ apiKey: required("POSTLINE_IMPATIENT_KEY"), baseUrl, retry: { maxAttempts: 1 } });
  for (let n = 0; n < 3; n++) await impatient.send(message());
  await assert.rejects(impatient.send(message()), (error: PostlineError) => error.status === 429 && error.retryAfterMs !== null);
});

test("verify a received webhook", async () => {
  const received: { body: Buffer; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ body: Buffer.concat(chunks), headers: request.headers });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const client = new Postline({ apiKey: required("POSTLINE_TEST_KEY"), baseUrl });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const created = await client.api.POST("/v3/webhooks", { body: { url, events: ["delivered"], auth: { hmac: {} } } });
    assert.equal(created.response.status, 201);
    await client.send(message());
    await drain();
    for (let waited = 0; received.length === 0 && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    const [delivery] = received;
    assert.ok(delivery, "the webhook arrived");
    const now = await runtimeNow();
    const keys = await publicKeys(baseUrl);
    assert.equal((verifyEd25519(delivery.body, delivery.headers as Record<string, string>, keys, now) as { event: string }).event, "delivered");
    const secret = (created.data as { secret: string }).secret;
    assert.deepEqual(verifyHmac(delivery.body, delivery.headers as Record<string, string>, secret, undefined, now), JSON.parse(delivery.body.toString()));
    assert.throws(() => verifyHmac(delivery.body, delivery.headers as Record<string, string>, `${secret}x`, undefined, now));
  } finally {
    server.close();
  }
});
