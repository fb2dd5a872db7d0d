import { OidcClient } from "oidc-client-ts";
import { afterEach, describe, expect, it, vi } from "vitest";
import { completeCloudSignIn, userManager } from "../src/cloud";
import { type CloudSignIn, isCallback, loadCloudSignIn } from "../src/cloud-config";

const CONFIG: CloudSignIn = {
  issuer: "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool",
  domain: "https://postline-1.auth.eu-west-1.amazoncognito.com",
  clients: { test: "client-test", live: "client-live" },
};
const PAGE = "https://d1.cloudfront.net/console/";

const answer = (body: unknown, status = 200) =>
  (async () => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } })) as unknown as typeof fetch;

function unsignedJwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  return `${part({ alg: "RS256", kid: "k1" })}.${part(claims)}.c2ln`;
}

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStorage.clear();
});

describe("the cloud sign-in's configuration", () => {
  it("is the deploy's cognito settings, and nothing on the embedded runtime or without a config", async () => {
    expect(await loadCloudSignIn(answer({ sign_in: "cognito", cognito: CONFIG }))).toEqual(CONFIG);
    expect(await loadCloudSignIn(answer({ api_base_url: "", sign_in: "local", environments: ["test", "live"] }))).toBeNull();
    expect(await loadCloudSignIn(answer({ sign_in: "cognito", cognito: { ...CONFIG, clients: { test: "t" } } }))).toBeNull();
    expect(await loadCloudSignIn(answer({}, 404))).toBeNull();
    const html = (async () => new Response("<!doctype html>", { status: 200 })) as unknown as typeof fetch;
    expect(await loadCloudSignIn(html)).toBeNull();
  });

  it("knows the hosted sign-in's redirect back", () => {
    expect(isCallback("?code=abc&state=s1")).toBe(true);
    expect(isCallback("?error=access_denied&state=s1")).toBe(true);
    expect(isCallback("?code=abc")).toBe(false);
    expect(isCallback("")).toBe(false);
  });
});

describe("the code flow with PKCE through an environment's client", () => {
  it("asks the hosted sign-in for a code and trades it for that environment's ID token", async () => {
    const manager = userManager(CONFIG, "test", `${PAGE}#/overview`);
    // What startCloudSignIn's redirect asks for (the same client and settings).
    const request = await new OidcClient(manager.settings).createSigninRequest({ request_type: "si:r" });
    const url = new URL(request.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${CONFIG.domain}/oauth2/authorize`);
    expect(url.searchParams.get("client_id")).toBe("client-test");
    expect(url.searchParams.get("redirect_uri")).toBe(PAGE); // the fragment is not part of the callback
    expect(url.searchParams.get("response_type")).toBe("code");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("scope")).toBe("openid email");
    const state = url.searchParams.get("state")!;

    const exchanges: URLSearchParams[] = [];
    const now = Math.floor(Date.now() / 1000);
    const idToken = unsignedJwt({ iss: CONFIG.issuer, aud: "client-test", sub: "u1", iat: now, exp: now + 3600, account_id: "acc_1", env: "test" });
    vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
      expect(String(input)).toBe(`${CONFIG.domain}/oauth2/token`);
      exchanges.push(new URLSearchParams(String(init?.body)));
      return new Response(JSON.stringify({ id_token: idToken, access_token: "at", token_type: "Bearer", expires_in: 3600 }), {
        status: 200,
        headers: { "Content-Type": "application/json" },
      });
    });
    sessionStorage.setItem("postline.console.pending-env", "test");
    const session = await completeCloudSignIn(CONFIG, `${PAGE}?code=the-code&state=${state}`);
    expect(session.token).toBe(idToken);
    expect(session.env).toBe("test");
    expect(session.expiresAt).toBeGreaterThan(now);
    const [exchange] = exchanges;
    expect(exchange?.get("grant_type")).toBe("authorization_code");
    expect(exchange?.get("code")).toBe("the-code");
    expect(exchange?.get("client_id")).toBe("client-test");
    expect(exchange?.get("code_verifier")?.length).toBeGreaterThanOrEqual(43); // PKCE's verifier, never sent before
  });

  it("refuses a redirect back whose state it did not start", async () => {
    await expect(completeCloudSignIn(CONFIG, `${PAGE}?code=c&state=forged`)).rejects.toThrow();
  });
});
