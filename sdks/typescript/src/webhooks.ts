// Verifying a received webhook (Node.js): the interface's Ed25519 header, sent on every delivery,
// and the HMAC header of endpoints in hmac mode. For the Standard Webhooks headers, use the
// official `standardwebhooks` package; both are sent on every delivery.
import { createHmac, createPublicKey, timingSafeEqual, verify, type KeyObject } from "node:crypto";

export const ED25519_HEADER = "svc-signature-ed25519";
export const HMAC_HEADER = "x-svc-signature";
const TOLERANCE_SECONDS = 300; // the interface: receivers reject timestamps older than 5 minutes

export class WebhookVerificationError extends Error {}

type Headers = Record<string, string | string[] | undefined>;

/** The platform's Ed25519 keys by kid, from /.well-known/svc/keys (a JWK Set, RFC 8037). */
export async function publicKeys(baseUrl: string, fetcher: typeof fetch = fetch): Promise<Map<string, KeyObject>> {
  const response = await fetcher(`${baseUrl.replace(/\/$/, "")}/.well-known/svc/keys`);
  if (!response.ok) throw new Error(`signing keys: ${response.status}`);
  const { keys } = (await response.json()) as { keys: { kid: string; kty: string; crv: string; x: string }[] };
  return new Map(keys.map((jwk) => [jwk.kid, createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: "jwk" })]));
}

/** The parsed payload when Svc-Signature-Ed25519 (t=,v1=,kid=) verifies over `{t}.{body}`. */
export function verifyEd25519(body: string | Buffer, headers: Headers, keys: Map<string, KeyObject>, now?: number): unknown {
  const parts = fields(header(headers, ED25519_HEADER));
  const key = keys.get(parts.get("kid") ?? "");
  if (!key) throw new WebhookVerificationError("signed by a key not in the set: fetch /.well-known/svc/keys again");
  const t = fresh(parts, now);
  const signature = Buffer.from(parts.get("v1") ?? "", "base64");
  if (!verify(null, Buffer.concat([Buffer.from(`${t}.`), Buffer.from(body)]), key, signature)) {
    throw new WebhookVerificationError("the Ed25519 signature does not match");
  }
  return JSON.parse(body.toString());
}

/** The parsed payload when one v1 of the hmac header (t=,v1=,...) is HMAC-SHA256 of `{t}.{body}`. */
export function verifyHmac(body: string | Buffer, headers: Headers, secret: string, name = HMAC_HEADER, now?: number): unknown {
  const value = header(headers, name);
  const t = fresh(fields(value), now);
  const expected = createHmac("sha256", secret).update(`${t}.`).update(body).digest("hex");
  const matches = value
    .split(",")
    .filter((item) => item.startsWith("v1="))
    .some((item) => item.length === expected.length + 3 && timingSafeEqual(Buffer.from(item.slice(3)), Buffer.from(expected)));
  if (!matches) throw new WebhookVerificationError("no v1 signature matches the secret");
  return JSON.parse(body.toString());
}

function header(headers: Headers, name: string): string {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && value !== undefined) return Array.isArray(value) ? value.join(",") : value;
  }
  throw new WebhookVerificationError(`no ${name} header`);
}

function fields(value: string): Map<string, string> {
  return new Map(value.split(",").filter((item) => item.includes("=")).map((item) => {
    const at = item.indexOf("=");
    return [item.slice(0, at), item.slice(at + 1)] as [string, string];
  }));
}

function fresh(parts: Map<string, string>, now?: number): number {
  const t = Number(parts.get("t"));
  if (!Number.isInteger(t)) throw new WebhookVerificationError("no timestamp in the signature");
  if (Math.abs((now ?? Date.now() / 1000) - t) > TOLERANCE_SECONDS) {
    throw new WebhookVerificationError("the timestamp is more than 5 minutes away");
  }
  return t;
}
