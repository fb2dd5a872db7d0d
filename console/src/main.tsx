import { render } from "preact";
import { App, SignedOut } from "./app";
import { loadSession, saveSession, signIn, signInCode } from "./session";
import "./styles.css";

async function start(root: HTMLElement) {
  const code = signInCode(location.hash);
  if (code) {
    history.replaceState(null, "", `${location.pathname}#/overview`); // the code is spent: off the address bar
    try {
      const session = await signIn(code);
      saveSession(session);
    } catch (e) {
      if (!loadSession()) return render(<SignedOut message={(e as Error).message} />, root);
    }
  }
  const session = loadSession();
  render(session ? <App initial={session} /> : <SignedOut />, root);
}

void start(document.getElementById("app")!);
