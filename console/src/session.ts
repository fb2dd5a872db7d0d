// The console's session: a console JWT (it carries the environment, test or live) kept in this
// browser's storage. The local runtime signs in with a one-time link (#signin=<code>); the switch
// in the header asks the issuer for a token of the other environment.

export type Env = "test" | "live";

export interface Session {
  token: string;
  env: Env;
  expiresAt: number; // seconds since the epoch
}

const KEY = "postline.console.session";

export function loadSession(storage: Storage = localStorage, now = Date.now() / 1000): Session | null {
  const raw = storage.getItem(KEY);
  if (!raw) return null;
  try {
    const session = JSON.parse(raw) as Session;
    if (typeof session.token !== "string" || session.expiresAt <= now) return null;
    return session;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null, storage: Storage = localStorage): void {
  if (session) storage.setItem(KEY, JSON.stringify(session));
  else storage.removeItem(KEY);
}

interface TokenResponse {
  token: string;
  env: Env;
  expires_at: number;
}

async function tokenFrom(response: Response): Promise<Session> {
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(body?.error?.message ?? `Sign-in failed (${response.status}).`);
  }
  const body = (await response.json()) as TokenResponse;
  return { token: body.token, env: body.env, expiresAt: body.expires_at };
}

/** The sign-in code in a link's fragment (#signin=...), if any. */
export function signInCode(hash: string): string | null {
  const match = /(?:^#|&)signin=([A-Za-z0-9_-]+)/.exec(hash);
  return match?.[1] ?? null;
}

export async function signIn(code: string, fetcher: typeof fetch = fetch): Promise<Session> {
  return tokenFrom(
    await fetcher("/console/session", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code }),
    }),
  );
}

export async function switchEnv(session: Session, env: Env, fetcher: typeof fetch = fetch): Promise<Session> {
  return tokenFrom(
    await fetcher("/console/session/switch", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${session.token}` },
      body: JSON.stringify({ env }),
    }),
  );
}
