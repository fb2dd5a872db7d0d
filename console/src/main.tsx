import { render } from "preact";
import { App, SignedOut } from "./app";
import { isCallback, loadCloudSignIn } from "./cloud-config";
import { loadSession, saveSession, signIn, signInCode } from "./session";
import "./styles.css";

async function start(root: HTMLElement) {
  const cloud = await loadCloudSignIn(); // the deployment's Cognito pool; null on the embedded runtime
  let problem: string | undefined;
  if (cloud && isCallback(location.search)) {
    try {
      const { completeCloudSignIn } = await import("./cloud");
      saveSession(await completeCloudSignIn(cloud));
    } catch (e) {
      problem = (e as Error).message;
    }
    history.replaceState(null, "", `${location.pathname}#/overview`); // the code is spent: off the address bar
  }
  const code = signInCode(location.hash);
  if (code) {
    history.replaceState(null, "", `${location.pathname}#/overview`);
    try {
      saveSession(await signIn(code));
    } catch (e) {
      problem = (e as Error).message;
    }
  }
  const session = loadSession();
  render(session ? <App initial={session} cloud={cloud} /> : <SignedOut message={problem} cloud={cloud} />, root);
}

void start(document.getElementById("app")!);
