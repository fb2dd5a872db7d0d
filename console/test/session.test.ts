import { describe, expect, it } from "vitest";
import { loadSession, saveSession, signIn, signInCode, switchEnv } from "../src/session";

describe("the session", () => {
  it("reads the one-time code from the link's fragment only", () => {
    expect(signInCode("#signin=abc_DEF-123")).toBe("abc_DEF-123");
    expect(signInCode("#/overview")).toBeNull();
    expect(signInCode("#signin=")).toBeNull();
  });

  it("is kept until it expires", () => {
    saveSession({ token: "t", env: "test", expiresAt: 2000 });
    expect(loadSession(localStorage, 1000)).toEqual({ token: "t", env: "test", expiresAt: 2000 });
    expect(loadSession(localStorage, 2000)).toBeNull();
    saveSession(null);
    expect(loadSession(localStorage, 0)).toBeNull();
    localStorage.setItem("postline.console.session", "{not json");
    expect(loadSession(localStorage, 0)).toBeNull();
  });

  it("signs in with the code and switches with the token", async () => {
    const calls: [string, RequestInit | undefined][] = [];
    const fetcher = (async (url: string, init?: RequestInit) => {
      calls.push([url, init]);
      const env = url.endsWith("/switch") ? "live" : "test";
      return new Response(JSON.stringify({ token: `tok-${env}`, env, expires_at: 99 }), { status: 200 });
    }) as typeof fetch;
    const session = await signIn("code1", fetcher);
    expect(session).toEqual({ token: "tok-test", env: "test", expiresAt: 99 });
    expect(JSON.parse(String(calls[0]?.[1]?.body))).toEqual({ code: "code1" });
    const live = await switchEnv(session, "live", fetcher);
    expect(live.env).toBe("live");
    expect((calls[1]?.[1]?.headers as Record<string, string>)["Authorization"]).toBe("Bearer tok-test");
  });

  it("says why a spent link does not sign in", async () => {
    const fetcher = (async () =>
      new Response(JSON.stringify({ error: { code: "unauthorized", message: "This sign-in link was used already." } }), {
        status: 401,
      })) as typeof fetch;
    await expect(signIn("spent", fetcher)).rejects.toThrow("used already");
  });
});
