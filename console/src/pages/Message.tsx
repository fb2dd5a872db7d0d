import { useEffect, useState } from "preact/hooks";
import { type Api, type Schemas, must } from "../api/client";
import { Loading, Page, Problem, useLoad } from "../components/ui";
import { when } from "../format";
import { href } from "../router";

type EventView = Schemas["EventView"];

/** The message's events per recipient, oldest first (a timeline reads downwards). */
export function timelines(events: EventView[]): Map<string, EventView[]> {
  const byRecipient = new Map<string, EventView[]>();
  for (const event of [...events].sort((a, b) => a.timestamp.localeCompare(b.timestamp))) {
    const key = event.recipient ?? "(message)";
    byRecipient.set(key, [...(byRecipient.get(key) ?? []), event]);
  }
  return byRecipient;
}

type MessageContent = Schemas["MessageContent"];
type ContentCheck = Schemas["ContentCheck"];

/** The preview's policy: no script, no network (inline images and styles only). */
export const PREVIEW_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'";

/**
 * The HTML part made safe to show in a sandboxed frame: the CSP above as the first thing in <head>,
 * and every link's target taken out (kept in its title and listed beside the preview), so that a click
 * follows nothing.
 */
export function safePreview(html: string): { srcdoc: string; links: string[] } {
  const doc = new DOMParser().parseFromString(html, "text/html");
  for (const element of [...doc.querySelectorAll("script, meta[http-equiv], base")]) element.remove();
  const meta = doc.createElement("meta");
  meta.setAttribute("http-equiv", "Content-Security-Policy");
  meta.setAttribute("content", PREVIEW_CSP);
  doc.head.prepend(meta);
  const links: string[] = [];
  for (const a of [...doc.querySelectorAll("a[href], area[href]")]) {
    const target = a.getAttribute("href") ?? "";
    if (target && !links.includes(target)) links.push(target);
    a.removeAttribute("href");
    a.setAttribute("title", target);
  }
  return { srcdoc: `<!doctype html>${doc.documentElement.outerHTML}`, links };
}

/** One recipient's body parts: the HTML and text parts' decoded text. */
export function bodies(copy: Schemas["RecipientCopy"] | undefined): { html: string | null; text: string | null } {
  const body = (type: string) =>
    copy?.parts.find((part) => part.content_type === type && !part.disposition && part.content != null)?.content ?? null;
  return { html: body("text/html"), text: body("text/plain") };
}

export function Preview({ html, text }: { html: string | null; text: string | null }) {
  if (!html && !text) return <p class="muted">No preview: the content is not available.</p>;
  const safe = html ? safePreview(html) : null;
  return (
    <div class="preview">
      {safe ? (
        <div>
          {/* sandbox="": no scripts, forms, popups or navigation out; the CSP inside keeps the network out. */}
          <iframe title="HTML part" sandbox="" srcDoc={safe.srcdoc} referrerpolicy="no-referrer" />
          {safe.links.length > 0 && (
            <details>
              <summary>Links ({safe.links.length}), shown, not followed</summary>
              <ul class="links">
                {safe.links.map((link) => (
                  <li key={link}>
                    <code>{link}</code>
                  </li>
                ))}
              </ul>
            </details>
          )}
        </div>
      ) : (
        <p class="muted">No HTML part.</p>
      )}
      <pre aria-label="Text part" tabIndex={0}>
        {text ?? "No text part."}
      </pre>
    </div>
  );
}

/** The check's score, verdict, parts and every rule that did not pass or added points. */
export function Score({ check }: { check: ContentCheck | null | undefined }) {
  if (!check) {
    return (
      <p>
        Score: <span class="muted">not scored</span>
      </p>
    );
  }
  return (
    <div class="score">
      <p>
        Score: <strong>{check.score}</strong> / 100 <span class={`pill v-${check.verdict}`}>{check.verdict}</span>
      </p>
      <ul class="check-parts">
        {check.parts.map((part) => {
          const hits = part.rules.filter((rule) => rule.status !== "pass" || (rule.points ?? 0) !== 0);
          return (
            <li key={part.name}>
              <span class={`pill s-${part.status}`}>{part.status}</span> {part.name.replace("_", " ")}{" "}
              <span class="muted">
                {part.earned}/{part.weight}
              </span>
              {part.fix && !hits.some((rule) => rule.fix === part.fix) && <div class="muted">{part.fix}</div>}
              {hits.length > 0 && (
                <ul>
                  {hits.map((rule) => (
                    <li key={rule.id}>
                      <code>{rule.id}</code> {rule.status}
                      {rule.points != null && ` (${rule.points > 0 ? "+" : ""}${rule.points})`}: {rule.detail}
                      {rule.fix && <span class="muted"> Fix: {rule.fix}</span>}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/** The recipients' copies; null while there are none (404: a test message the simulator has not taken yet). */
async function loadContent(api: Api, id: string): Promise<MessageContent | null> {
  const { data, response } = await api.GET("/v3/messages/{id}/content", { params: { path: { id } } });
  if (response.status === 404) return null;
  if (!data) throw new Error(`The content could not be read (${response.status}).`);
  return data;
}

function Content({ api, id, check }: { api: Api; id: string; check: ContentCheck | null | undefined }) {
  const [attempt, setAttempt] = useState(0);
  const content = useLoad(() => loadContent(api, id), [api, id, attempt]);
  const [recipient, setRecipient] = useState<string | null>(null);
  useEffect(() => {
    // A test message's copies appear once the simulator has taken it: look again for a little while.
    if (content.loading || content.data || content.error || attempt >= 10) return;
    const timer = setTimeout(() => setAttempt((n) => n + 1), 2000);
    return () => clearTimeout(timer);
  }, [content.loading, content.data, content.error, attempt]);
  const copies = content.data?.recipients ?? [];
  const copy = copies.find((c) => c.recipient === recipient) ?? copies[0];
  return (
    <section class="card" aria-labelledby="content-title">
      <h2 id="content-title">Content</h2>
      <Score check={check ?? content.data?.check} />
      <Problem error={content.error} />
      {copies.length > 1 && (
        <label>
          Recipient's copy{" "}
          <select value={copy?.recipient} onChange={(e) => setRecipient((e.target as HTMLSelectElement).value)}>
            {copies.map((c) => (
              <option key={c.recipient}>{c.recipient}</option>
            ))}
          </select>
        </label>
      )}
      {content.data === undefined && !content.error ? (
        <Loading when />
      ) : (
        <Preview {...bodies(copy)} />
      )}
      {copy && (
        <details>
          <summary>Raw message ({content.data?.source})</summary>
          <pre class="raw" tabIndex={0} aria-label="Raw message">
            {copy.raw}
          </pre>
        </details>
      )}
    </section>
  );
}

type Delivery = Schemas["WebhookDeliveryView"];

/**
 * The webhook deliveries of one message: every endpoint's deliveries since the message was created
 * (the deliveries route filters by endpoint, status, event and time, not by message), kept when
 * they carry its id; at most `pages` pages of 100 per endpoint.
 */
export async function messageDeliveries(api: Api, id: string, since: string, pages = 5): Promise<Delivery[]> {
  const hooks = await must(api.GET("/v3/webhooks", { params: { query: { per_page: 100 } } }));
  const perHook = await Promise.all(
    hooks.items.map(async (hook) => {
      const found: Delivery[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < pages; page++) {
        const query: { since: string; limit: number; cursor?: string } = { since, limit: 100 };
        if (cursor) query.cursor = cursor;
        const result: Schemas["WebhookDeliveryPage"] = await must(
          api.GET("/v3/webhooks/{id}/deliveries", { params: { path: { id: hook.id }, query } }),
        );
        found.push(...result.deliveries.filter((d) => d.message_id === id));
        if (!result.has_more || !result.next_cursor) break;
        cursor = result.next_cursor;
      }
      return found;
    }),
  );
  return perHook.flat().sort((a, b) => a.created_at.localeCompare(b.created_at));
}

function Webhooks({ api, id, since }: { api: Api; id: string; since: string }) {
  const deliveries = useLoad(() => messageDeliveries(api, id, since), [api, id, since]);
  const [error, setError] = useState<Error>();
  const [resent, setResent] = useState<string | null>(null);
  const resend = async (delivery: Delivery) => {
    try {
      setError(undefined);
      await must(api.POST("/v3/webhooks/deliveries/resend", { body: { delivery_ids: [delivery.id] } }));
      setResent(delivery.id);
      deliveries.reload();
    } catch (e) {
      setError(e as Error);
    }
  };
  const list = deliveries.data ?? [];
  return (
    <section class="card" aria-labelledby="webhooks-title">
      <div class="actions">
        <h2 id="webhooks-title">Webhook deliveries</h2>
        <button type="button" class="small" onClick={deliveries.reload} aria-label="Refresh webhook deliveries">
          Refresh
        </button>
      </div>
      <Problem error={error ?? deliveries.error} />
      {resent && (
        <p role="status" class="muted">
          Resend of {resent} queued.
        </p>
      )}
      {deliveries.data && list.length === 0 && <p class="muted">No webhook deliveries for this message.</p>}
      {list.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Webhook deliveries of message {id}</caption>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((d) => (
                <tr key={d.id}>
                  <td class="wrap">
                    <code>{d.url}</code>
                  </td>
                  <td>
                    {d.event}
                    {d.manual && <span class="muted"> (resend)</span>}
                  </td>
                  <td>{d.status}</td>
                  <td>
                    {d.attempts.length === 0 ? (
                      "—"
                    ) : (
                      <ol class="attempts">
                        {d.attempts.map((a) => (
                          <li key={a.number}>
                            <time dateTime={a.at}>{when(a.at)}</time> {a.outcome}
                            {a.response_code != null && ` ${a.response_code}`} {a.latency_ms} ms
                            {a.error && <span class="muted"> {a.error}</span>}
                          </li>
                        ))}
                      </ol>
                    )}
                  </td>
                  <td>
                    <button type="button" class="small" aria-label={`Resend ${d.event} delivery ${d.id}`} onClick={() => void resend(d)}>
                      Resend
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function Message({ api, id, env }: { api: Api; id: string; env: "test" | "live" }) {
  const message = useLoad(() => must(api.GET("/v3/messages/{id}", { params: { path: { id } } })), [api, id]);
  const events = useLoad(
    () => must(api.GET("/v3/events", { params: { query: { message_id: id, limit: 100 } } })),
    [api, id],
  );
  const m = message.data;
  const simulated = events.data?.items.some((e) => (e.metadata as Record<string, unknown> | null)?.["test"] === true);
  return (
    <Page title={`Message ${id}`} actions={<a href={href("activity")}>Back to activity</a>}>
      <Loading when={message.loading && !m} />
      <Problem error={message.error} />
      {m && (
        <section class="card" aria-labelledby="status-title">
          <h2 id="status-title">
            Status: <span class={`pill m-${m.status}`}>{m.status}</span>
          </h2>
          {simulated && (
            <p class={env === "live" ? "problem" : "muted"}>
              A test-mode message: simulated, never delivered to its recipients
              {env === "live" ? " (switch to Test to see it in Activity)." : "."}
            </p>
          )}
          <dl class="facts">
            <dt>From</dt>
            <dd>{m.from}</dd>
            <dt>To</dt>
            <dd>{m.to.join(", ")}</dd>
            <dt>Subject</dt>
            <dd>{m.subject}</dd>
            <dt>Created</dt>
            <dd>{when(m.created_at)}</dd>
            <dt>Delivered</dt>
            <dd>{when(m.delivered_at)}</dd>
            {m.tags.length > 0 && (
              <>
                <dt>Tags</dt>
                <dd>{m.tags.join(", ")}</dd>
              </>
            )}
          </dl>
        </section>
      )}
      <section class="card" aria-labelledby="timeline-title">
        <h2 id="timeline-title">Recipients and events</h2>
        <Problem error={events.error} />
        {events.data && events.data.items.length === 0 && <p class="muted">No events yet.</p>}
        {events.data &&
          [...timelines(events.data.items)].map(([recipient, list]) => (
            <div key={recipient} class="timeline">
              <h3>{recipient}</h3>
              <ol>
                {list.map((e) => (
                  <li key={e.id}>
                    <span class={`pill t-${e.type}`}>{e.type}</span> <time dateTime={e.timestamp}>{when(e.timestamp)}</time>
                  </li>
                ))}
              </ol>
            </div>
          ))}
      </section>
      <Content api={api} id={id} check={m?.content_check} />
      {m && <Webhooks api={api} id={id} since={m.created_at} />}
    </Page>
  );
}
