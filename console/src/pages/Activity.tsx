import { useEffect, useRef, useState } from "preact/hooks";
import { type Api, type Schemas, must } from "../api/client";
import type { paths } from "../api/schema";
import { Page, Problem } from "../components/ui";
import { toCsv, when } from "../format";
import { href } from "../router";

type EventView = Schemas["EventView"];
type EventType = NonNullable<NonNullable<paths["/v3/events"]["get"]["parameters"]["query"]>["event"]>;
const TYPES: EventType[] = ["queued", "sent", "delivered", "opened", "clicked", "bounced", "complained", "unsubscribed", "delayed", "rejected", "failed"];
export const REFRESH_MS = 3000;

export interface Filters {
  event: EventType | "";
  recipient: string;
  tag: string;
  message_id: string;
}

const EMPTY: Filters = { event: "", recipient: "", tag: "", message_id: "" };

function query(filters: Filters, cursor?: string) {
  return {
    limit: 50,
    ...(filters.event ? { event: filters.event } : {}),
    ...(filters.recipient.trim() ? { recipient: filters.recipient.trim() } : {}),
    ...(filters.tag.trim() ? { tag: filters.tag.trim() } : {}),
    ...(filters.message_id.trim() ? { message_id: filters.message_id.trim() } : {}),
    ...(cursor ? { cursor } : {}),
  };
}

/** Whether an event belongs to the console's environment: a simulated message's events carry
 * metadata.test (test keys, or sends support routed to the sandbox); real deliveries do not. The
 * API lists both modes in one feed, so the console separates them here. */
export function inMode(event: EventView, env: "test" | "live"): boolean {
  return Boolean(event.metadata && (event.metadata as Record<string, unknown>)["test"] === true) === (env === "test");
}

/** Newer events first, then the ones already shown (an event is listed once). */
export function merge(newer: EventView[], shown: EventView[]): EventView[] {
  const seen = new Set(newer.map((e) => e.id));
  return [...newer, ...shown.filter((e) => !seen.has(e.id))];
}

export function eventsCsv(events: EventView[]): string {
  return toCsv(
    ["timestamp", "type", "message_id", "recipient", "tags", "event_id"],
    events.map((e) => [e.timestamp, e.type, e.message_id, e.recipient, e.tags.join(" "), e.id]),
  );
}

export function Activity({ api, env }: { api: Api; env: "test" | "live" }) {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [events, setEvents] = useState<EventView[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [total, setTotal] = useState<number | null>(null);
  const [error, setError] = useState<Error>();
  const [live, setLive] = useState(true);
  const generation = useRef(0);

  // The newest page, at once and then every few seconds: new events join the top.
  useEffect(() => {
    const mine = ++generation.current;
    setEvents([]);
    setCursor(null);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let first = true;
    const poll = async () => {
      try {
        const page = await must(api.GET("/v3/events", { params: { query: query(filters) } }));
        if (mine !== generation.current) return;
        setEvents((shown) => merge(page.items.filter((e) => inMode(e, env)), shown));
        setTotal(page.total_count);
        if (first) setCursor(page.has_more ? (page.next_cursor ?? null) : null);
        first = false;
        setError(undefined);
      } catch (e) {
        if (mine === generation.current) setError(e as Error);
      }
      if (live && mine === generation.current) timer = setTimeout(poll, REFRESH_MS);
    };
    void poll();
    return () => {
      generation.current++;
      clearTimeout(timer);
    };
  }, [api, env, filters, live]);

  const older = async () => {
    if (!cursor) return;
    try {
      const page = await must(api.GET("/v3/events", { params: { query: query(filters, cursor) } }));
      setEvents((shown) => merge(shown, page.items.filter((e) => inMode(e, env))));
      setCursor(page.has_more ? (page.next_cursor ?? null) : null);
    } catch (e) {
      setError(e as Error);
    }
  };

  const download = () => {
    const blob = new Blob([eventsCsv(events)], { type: "text/csv" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "events.csv";
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  };

  const field = (name: keyof Filters) => (e: Event) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value });
  return (
    <Page
      title="Activity"
      actions={
        <div class="actions">
          <label class="inline">
            <input type="checkbox" checked={live} onChange={() => setLive(!live)} /> Refresh every {REFRESH_MS / 1000} s
          </label>
          <button type="button" onClick={download} disabled={events.length === 0}>
            Export CSV
          </button>
        </div>
      }
    >
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
        }}
      >
        <label>
          Type
          <select value={draft.event} onChange={field("event")}>
            <option value="">Any</option>
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Recipient
          <input type="email" value={draft.recipient} onInput={field("recipient")} />
        </label>
        <label>
          Tag
          <input value={draft.tag} onInput={field("tag")} />
        </label>
        <label>
          Message id
          <input value={draft.message_id} onInput={field("message_id")} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <Problem error={error} />
      <p class="muted" aria-live="polite">
        {total === null
          ? "Loading…"
          : `${events.length} ${env} events shown (${total} in both modes match; older ones load on request)`}
      </p>
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Events, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Type</th>
              <th scope="col">Recipient</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr key={e.id}>
                <td>{when(e.timestamp)}</td>
                <td>
                  <span class={`pill t-${e.type}`}>{e.type}</span>
                </td>
                <td>{e.recipient ?? "—"}</td>
                <td>
                  <a href={href("messages", e.message_id)}>{e.message_id}</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {cursor && (
        <button type="button" onClick={older}>
          Load older events
        </button>
      )}
    </Page>
  );
}
