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

/** What GET /v3/messages/{id}/content may answer (issue 28); absent fields show as missing. */
interface Content {
  html?: string | null;
  text?: string | null;
  score?: number | null;
  rule_hits?: { rule?: string; name?: string; score?: number; description?: string }[] | null;
}

async function loadContent(id: string, token: () => string | null): Promise<Content | null> {
  const response = await fetch(`/v3/messages/${encodeURIComponent(id)}/content`, {
    headers: { Authorization: `Bearer ${token() ?? ""}` },
  });
  if (!response.ok) return null; // no such route yet, or nothing kept: "no preview"
  return ((await response.json().catch(() => null)) as Content | null) ?? null;
}

export function Preview({ content }: { content: Content | null }) {
  if (!content || (!content.html && !content.text)) return <p class="muted">No preview: the content is not available.</p>;
  return (
    <div class="preview">
      {content.html ? (
        // sandbox="" : no scripts, no forms, no top navigation; the console's CSP keeps remote images out.
        <iframe title="HTML part" sandbox="" srcDoc={content.html} referrerpolicy="no-referrer" />
      ) : (
        <p class="muted">No HTML part.</p>
      )}
      <pre aria-label="Text part" tabIndex={0}>
        {content.text ?? "No text part."}
      </pre>
    </div>
  );
}

export function Message({ api, id, token, env }: { api: Api; id: string; token: () => string | null; env: "test" | "live" }) {
  const message = useLoad(() => must(api.GET("/v3/messages/{id}", { params: { path: { id } } })), [api, id]);
  const events = useLoad(
    () => must(api.GET("/v3/events", { params: { query: { message_id: id, limit: 100 } } })),
    [api, id],
  );
  const content = useLoad(() => loadContent(id, token), [api, id]);
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
      <section class="card" aria-labelledby="content-title">
        <h2 id="content-title">Content</h2>
        <p>
          Score:{" "}
          {content.data?.score === undefined || content.data?.score === null ? (
            <span class="muted">not scored</span>
          ) : (
            <strong>{content.data.score}</strong>
          )}
        </p>
        {content.data?.rule_hits && content.data.rule_hits.length > 0 && (
          <ul>
            {content.data.rule_hits.map((hit, i) => (
              <li key={i}>
                {hit.rule ?? hit.name} {hit.score !== undefined && `(${hit.score})`} {hit.description}
              </li>
            ))}
          </ul>
        )}
        {!content.loading && <Preview content={content.data ?? null} />}
      </section>
    </Page>
  );
}
