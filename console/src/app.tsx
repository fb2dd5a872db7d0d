import { useMemo, useState } from "preact/hooks";
import { createApi } from "./api/client";
import type { CloudSignIn } from "./cloud-config";
import { EnvBadge } from "./components/ui";
import { Activity } from "./pages/Activity";
import { Audit, Domains, Keys, Suppressions } from "./pages/Manage";
import { Message } from "./pages/Message";
import { Lists, Templates, Verification, Webhooks } from "./pages/More";
import { Overview } from "./pages/Overview";
import { href, useRoute } from "./router";
import { type Env, type Session, saveSession, switchEnv } from "./session";

/** Off to the deployment's hosted sign-in (its code loaded only where there is one). */
async function signInThrough(cloud: CloudSignIn, env: Env): Promise<void> {
  const { startCloudSignIn } = await import("./cloud");
  await startCloudSignIn(cloud, env);
}

export const PAGES: [string, string][] = [
  ["overview", "Overview"],
  ["activity", "Activity"],
  ["domains", "Domains"],
  ["suppressions", "Suppressions"],
  ["lists", "Lists"],
  ["templates", "Templates"],
  ["webhooks", "Webhooks"],
  ["verification", "Verification"],
  ["keys", "API keys"],
  ["audit", "Audit log"],
];

export function App({ initial, cloud }: { initial: Session; cloud?: CloudSignIn | null }) {
  const [session, setSession] = useState(initial);
  const [problem, setProblem] = useState<string>();
  const route = useRoute();
  // A new client per session: every page reloads when the environment changes.
  const api = useMemo(() => createApi(() => session.token), [session]);

  const choose = async (env: Env) => {
    if (env === session.env) return;
    try {
      if (cloud) return await signInThrough(cloud, env); // the other environment's client, by redirect
      const next = await switchEnv(session, env);
      saveSession(next);
      setSession(next);
      setProblem(undefined);
    } catch (e) {
      setProblem((e as Error).message);
    }
  };

  let page;
  switch (route.page) {
    case "activity":
      page = <Activity api={api} env={session.env} key={session.env} />;
      break;
    case "messages":
      page = route.id ? (
        <Message api={api} id={route.id} env={session.env} key={session.env} />
      ) : (
        <Activity api={api} env={session.env} />
      );
      break;
    case "domains":
      page = <Domains api={api} env={session.env} />;
      break;
    case "suppressions":
      page = <Suppressions api={api} />;
      break;
    case "lists":
      page = <Lists api={api} />;
      break;
    case "templates":
      page = <Templates api={api} />;
      break;
    case "webhooks":
      page = <Webhooks api={api} />;
      break;
    case "verification":
      page = <Verification api={api} />;
      break;
    case "keys":
      page = <Keys api={api} env={session.env} />;
      break;
    case "audit":
      page = <Audit api={api} />;
      break;
    default:
      page = <Overview api={api} />;
  }
  const current = route.page === "messages" ? "activity" : route.page;
  return (
    <div class={`shell mode-${session.env}`}>
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault(); // the hash is the route: move focus without changing it
          document.getElementById("main")?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Postline</span>
        <EnvBadge env={session.env} />
        <fieldset class="switch">
          <legend class="sr-only">Environment</legend>
          {(["test", "live"] as Env[]).map((env) => (
            <label key={env} class={env === session.env ? "on" : ""}>
              <input type="radio" name="env" value={env} checked={env === session.env} onChange={() => choose(env)} />
              {env === "test" ? "Test" : "Live"}
            </label>
          ))}
        </fieldset>
        <button
          type="button"
          class="small signout"
          onClick={() => {
            saveSession(null);
            location.reload();
          }}
        >
          Sign out
        </button>
      </header>
      {session.env === "test" && (
        <p class="test-banner" role="note">
          Test mode: what you see here was sent with test keys and reached no real recipient.
        </p>
      )}
      {problem && (
        <p role="alert" class="problem">
          {problem}
        </p>
      )}
      <nav class="side" aria-label="Console">
        <ul>
          {PAGES.map(([page, label]) => (
            <li key={page}>
              <a href={href(page)} aria-current={current === page ? "page" : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </div>
  );
}

export function SignedOut({ message, cloud }: { message?: string | undefined; cloud?: CloudSignIn | null }) {
  return (
    <main id="main" class="signed-out">
      <h1>Postline console</h1>
      {message && (
        <p role="alert" class="problem">
          {message}
        </p>
      )}
      {cloud ? (
        <p>
          <button type="button" onClick={() => void signInThrough(cloud, "live")}>
            Sign in
          </button>
        </p>
      ) : (
        <p>
          Open the sign-in link <code>make run</code> printed (it works once). Restart <code>make run</code> for a new one.
        </p>
      )}
    </main>
  );
}
