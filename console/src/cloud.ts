// Signing in to the console in the cloud: the deployment's Cognito pool (docs/operating/deploying.md).
// The stack's outputs go into config.json beside index.html at deploy; the embedded runtime's
// config.json says "local" instead, and the console signs in with the printed link. Each environment is an app client
// of the pool, and its ID token is the console JWT (account_id, env and scope come from the pool's
// trigger). oidc-client-ts does the authorization code flow with PKCE, its state and the exchange.
import { type User, UserManager, WebStorageStateStore } from "oidc-client-ts";
import type { CloudSignIn } from "./cloud-config";
import type { Env, Session } from "./session";

const PENDING = "postline.console.pending-env"; // which client the redirect in flight belongs to

/** One environment's client. Its endpoints are given, not discovered: the page may only connect to
 * its own origin and the hosted sign-in's (the CSP), and Cognito's endpoints are fixed by the domain. */
export function userManager(config: CloudSignIn, env: Env, pageUrl: string = location.href): UserManager {
  const here = new URL(pageUrl);
  const redirect = `${here.origin}${here.pathname}`;
  return new UserManager({
    authority: config.issuer,
    client_id: config.clients[env],
    redirect_uri: redirect,
    post_logout_redirect_uri: redirect,
    response_type: "code",
    scope: "openid email",
    loadUserInfo: false,
    metadata: {
      issuer: config.issuer,
      authorization_endpoint: `${config.domain}/oauth2/authorize`,
      token_endpoint: `${config.domain}/oauth2/token`,
      end_session_endpoint: `${config.domain}/logout`,
    },
    userStore: new WebStorageStateStore({ store: sessionStorage }),
    stateStore: new WebStorageStateStore({ store: sessionStorage }),
  });
}

/** Off to the hosted sign-in through `env`'s client. Signed in already there (the other
 * environment), it comes straight back: switching is a redirect, not a second password. */
export async function startCloudSignIn(config: CloudSignIn, env: Env, storage: Storage = sessionStorage): Promise<void> {
  storage.setItem(PENDING, env);
  await userManager(config, env).signinRedirect();
}

export function sessionOf(user: User, env: Env): Session {
  return { token: user.id_token ?? "", env, expiresAt: user.expires_at ?? 0 };
}

/** The redirect back: its code exchanged (PKCE) for the environment's ID token, as a session. */
export async function completeCloudSignIn(
  config: CloudSignIn,
  pageUrl: string = location.href,
  storage: Storage = sessionStorage,
): Promise<Session> {
  const env: Env = storage.getItem(PENDING) === "test" ? "test" : "live";
  storage.removeItem(PENDING);
  const user = await userManager(config, env, pageUrl).signinRedirectCallback(pageUrl);
  if (!user.id_token) throw new Error("The sign-in returned no ID token.");
  return sessionOf(user, env);
}
