// Verifies one received webhook with the official Standard Webhooks library for JavaScript.
// stdin: {"secret", "body", "headers", "now"} (now: the sender's clock, unix seconds, so a test
// runtime whose clock was moved forward is judged by its own time). Prints the parsed payload.
import { Webhook } from "standardwebhooks";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { secret, body, headers, now } = JSON.parse(input);
Date.now = () => now * 1000;
const payload = new Webhook(secret).verify(body, headers);
process.stdout.write(JSON.stringify(payload));
