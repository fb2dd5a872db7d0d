// The deployment's sign-in settings (config.json) and the redirect back: small, and read at every
// start. The sign-in itself (cloud.ts, with oidc-client-ts) is loaded only where config.json names
// Cognito: the embedded runtime's console does not carry it.
import type { Env } from "./session";

export interface CloudSignIn {
  /** The OpenID issuer: https://cognito-idp.<region>.amazonaws.com/<pool id>. */
  issuer: string;
  /** The hosted sign-in: https://<prefix>.auth.<region>.amazoncognito.com. */
  domain: string;
  clients: Record<Env, string>;
}

/** config.json as the embedded runtime answers it ({"sign_in": "local"}) or as the deploy writes it
 * ({"sign_in": "cognito", "cognito": {...}}). */
interface ConsoleConfig {
  sign_in?: string;
  cognito?: Partial<CloudSignIn>;
}

/** The deployment's Cognito sign-in, or null for the local issuer's link (or no config at all). */
export async function loadCloudSignIn(fetcher: typeof fetch = fetch): Promise<CloudSignIn | null> {
  const response = await fetcher("config.json", { cache: "no-store" }).catch(() => null);
  if (!response?.ok) return null;
  const config = (await response.json().catch(() => null)) as ConsoleConfig | null;
  const cognito = config?.sign_in === "cognito" ? config.cognito : undefined;
  if (!cognito?.issuer || !cognito.domain || !cognito.clients?.test || !cognito.clients.live) return null;
  return { issuer: cognito.issuer, domain: cognito.domain, clients: cognito.clients };
}

/** True when the page is the hosted sign-in's redirect back (?code=...&state=...). */
export function isCallback(search: string): boolean {
  const params = new URLSearchParams(search);
  return params.has("state") && (params.has("code") || params.has("error"));
}

