// Webhooks, templates, lists and verification.
import { Fragment } from "preact";
import { useEffect, useState } from "preact/hooks";
import { type Api, type Schemas, must } from "../api/client";
import { Loading, Page, Problem, useLoad } from "../components/ui";
import { when } from "../format";
import { safePreview } from "./Message";

type Hook = Schemas["Webhook"];
const SAMPLE_SETTLE_MS = 1500;
const HOOK_EVENTS = ["delivered", "bounced", "complained", "opened", "clicked", "unsubscribed", "failed"] as const;

function useAction(after: () => void) {
  const [error, setError] = useState<Error>();
  const act = async (work: () => Promise<unknown>) => {
    try {
      setError(undefined);
      await work();
      after();
    } catch (e) {
      setError(e as Error);
    }
  };
  return { error, act };
}

function Deliveries({ api, hook }: { api: Api; hook: Hook }) {
  const page = useLoad(
    () => must(api.GET("/v3/webhooks/{id}/deliveries", { params: { path: { id: hook.id }, query: { limit: 20 } } })),
    [api, hook.id],
  );
  const { error, act } = useAction(page.reload);
  const [sampleType, setSampleType] = useState<Schemas["EventType"]>(hook.events[0] ?? "delivered");
  const resend = (id: string) =>
    act(() => must(api.POST("/v3/webhooks/deliveries/resend", { body: { delivery_ids: [id] } })));
  // The sample's one attempt is made a moment after the 202: look again once it has had time.
  const sendSample = () =>
    act(async () => {
      await must(api.POST("/v3/webhooks/{id}/test", { params: { path: { id: hook.id } }, body: { event: sampleType } }));
      setTimeout(page.reload, SAMPLE_SETTLE_MS);
    });
  return (
    <div>
      <div class="actions">
        <h3>Delivery history</h3>
        <button type="button" class="small" onClick={page.reload} aria-label={`Refresh deliveries of ${hook.url}`}>
          Refresh
        </button>
        <label class="inline">
          Sample event
          <select value={sampleType} onChange={(e) => setSampleType((e.target as HTMLSelectElement).value as Schemas["EventType"])}>
            {HOOK_EVENTS.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="small" onClick={() => void sendSample()} aria-label={`Send test event to ${hook.url}`}>
          Send test event
        </button>
      </div>
      <Problem error={error ?? page.error} />
      {page.data?.deliveries.length === 0 && <p class="muted">No deliveries yet.</p>}
      {page.data && page.data.deliveries.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Deliveries to {hook.url}</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {page.data.deliveries.map((d) => (
                <tr key={d.id}>
                  <td>{when(d.created_at)}</td>
                  <td>
                    {d.event}
                    {d.manual && <span class="muted"> ({d.message_id.startsWith("msg_sample_") ? "test" : "resend"})</span>}
                  </td>
                  <td>{d.status}</td>
                  <td>
                    {d.attempts.map((a) => `#${a.number} ${a.outcome} ${a.response_code ?? ""} ${a.latency_ms ?? ""} ms`).join("; ") || "—"}
                  </td>
                  <td>
                    <button type="button" class="small" aria-label={`Resend ${d.event} delivery ${d.id}`} onClick={() => resend(d.id)}>
                      Resend
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

export function Webhooks({ api }: { api: Api }) {
  const list = useLoad(() => must(api.GET("/v3/webhooks", { params: { query: { per_page: 50 } } })), [api]);
  const { error, act } = useAction(list.reload);
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>(["delivered", "bounced"]);
  const [signed, setSigned] = useState(true);
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Page title="Webhooks">
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const body = { url: url.trim(), events: events as Schemas["EventType"][], ...(signed ? { auth: { hmac: {} } } : {}) };
            const created = await must(api.POST("/v3/webhooks", { body }));
            setSecret(created.secret ?? null);
            setUrl("");
          });
        }}
      >
        <div class="filters">
          <label>
            Endpoint URL
            <input type="url" required value={url} onInput={(e) => setUrl((e.target as HTMLInputElement).value)} />
          </label>
          <label class="inline">
            <input type="checkbox" checked={signed} onChange={() => setSigned(!signed)} /> HMAC signature header
          </label>
        </div>
        <fieldset class="filters">
          <legend>Events</legend>
          {HOOK_EVENTS.map((name) => (
            <label key={name} class="inline">
              <input
                type="checkbox"
                checked={events.includes(name)}
                onChange={() => setEvents(events.includes(name) ? events.filter((x) => x !== name) : [...events, name])}
              />{" "}
              {name}
            </label>
          ))}
        </fieldset>
        <button type="submit">Create endpoint</button>
      </form>
      {secret && (
        <div class="card secret" role="status">
          <p>
            <strong>The signing secret, shown once:</strong>
          </p>
          <code>{secret}</code>
        </div>
      )}
      <Problem error={error ?? list.error} />
      <Loading when={list.loading && !list.data} />
      {list.data?.items.map((hook) => (
        <section key={hook.id} class="card" aria-label={hook.url}>
          <div class="page-head">
            <h2 class="wrap">{hook.url}</h2>
            <span class="pill">{hook.status}</span>
          </div>
          <p class="muted">Events: {hook.events.join(", ") || "all"}</p>
          <button type="button" aria-expanded={open === hook.id} onClick={() => setOpen(open === hook.id ? null : hook.id)}>
            {open === hook.id ? "Hide deliveries" : "Show deliveries"}
          </button>
          {open === hook.id && <Deliveries api={api} hook={hook} />}
        </section>
      ))}
    </Page>
  );
}

const PREVIEW_PAUSE_MS = 300; // render once typing pauses, not on every key

/** The API's own rendering of the editor's content with the sample vars (POST /v3/templates/render):
 * what a send would carry, escaping and limits included. */
function useRendered(api: Api, subject: string, html: string, vars: string) {
  const [state, setState] = useState<{ rendered?: Schemas["RenderedTemplate"]; problem?: string }>({});
  useEffect(() => {
    let parsed: Record<string, unknown>;
    try {
      const value: unknown = vars.trim() ? JSON.parse(vars) : {};
      if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("not an object");
      parsed = value as Record<string, unknown>;
    } catch {
      setState({ problem: "Sample variables must be a JSON object." });
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      const body = { subject: subject || null, html: html || null, vars: parsed };
      api.POST("/v3/templates/render", { body }).then(({ data, error }) => {
        if (live) setState(data ? { rendered: data } : { problem: error?.error.message ?? "The preview failed." });
      }, (e: unknown) => live && setState({ problem: String(e) }));
    }, PREVIEW_PAUSE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, subject, html, vars]);
  return state;
}

export function Templates({ api }: { api: Api }) {
  const list = useLoad(() => must(api.GET("/v3/templates", { params: { query: { per_page: 50 } } })), [api]);
  const { error, act } = useAction(list.reload);
  const [editing, setEditing] = useState<Schemas["Template"] | null>(null);
  const [name, setName] = useState("");
  const [subject, setSubject] = useState("");
  const [html, setHtml] = useState("<p>Hello {{name}}</p>");
  const [vars, setVars] = useState('{"name": "Ada"}');
  const preview = useRendered(api, subject, html, vars);
  const edit = (t: Schemas["Template"] | null) => {
    setEditing(t);
    setName(t?.name ?? "");
    setSubject(t?.subject ?? "");
    setHtml(t?.html ?? "<p>Hello {{name}}</p>");
  };
  return (
    <Page title="Templates">
      <form
        class="card"
        aria-label={editing ? `Edit ${editing.name}` : "New template"}
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const body = { name: name.trim(), subject, html };
            if (editing) await must(api.PATCH("/v3/templates/{id}", { params: { path: { id: editing.id } }, body }));
            else await must(api.POST("/v3/templates", { body }));
            edit(null);
          });
        }}
      >
        <h2>{editing ? `Edit ${editing.name}` : "New template"}</h2>
        <div class="filters">
          <label>
            Template name
            <input required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </label>
          <label>
            Subject
            <input value={subject} onInput={(e) => setSubject((e.target as HTMLInputElement).value)} />
          </label>
        </div>
        <div class="preview">
          <label>
            HTML
            <textarea rows={10} value={html} onInput={(e) => setHtml((e.target as HTMLTextAreaElement).value)} />
          </label>
          <label>
            Sample variables (JSON)
            <textarea rows={3} value={vars} onInput={(e) => setVars((e.target as HTMLTextAreaElement).value)} />
          </label>
        </div>
        <section class="preview-result" aria-label="Rendered preview" aria-live="polite">
          {preview.problem && <p class="problem">{preview.problem}</p>}
          {preview.rendered && (
            <>
              <p>
                <strong>Subject:</strong> {preview.rendered.subject ?? "—"}
              </p>
              {preview.rendered.missing_variables.length > 0 && (
                <p class="muted">Not given (rendered empty): {preview.rendered.missing_variables.join(", ")}</p>
              )}
              {/* As the API rendered it; sandboxed, no scripts, nothing remote, links not followable. */}
              <iframe title="Template preview" sandbox="" srcDoc={safePreview(preview.rendered.html ?? "").srcdoc} />
            </>
          )}
        </section>
        <div class="actions">
          <button type="submit">{editing ? "Save" : "Create template"}</button>
          {editing && (
            <button type="button" onClick={() => edit(null)}>
              Cancel
            </button>
          )}
        </div>
      </form>
      <Problem error={error ?? list.error} />
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Templates</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Subject</th>
              <th scope="col">Version</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data?.items.map((t) => (
              <tr key={t.id}>
                <td>{t.name}</td>
                <td>{t.subject ?? "—"}</td>
                <td>{t.version}</td>
                <td>
                  <button type="button" class="small" aria-label={`Edit ${t.name}`} onClick={() => edit(t)}>
                    Edit
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}

function Members({ api, list }: { api: Api; list: Schemas["MailingList"] }) {
  const members = useLoad(
    () => must(api.GET("/v3/lists/{id}/members", { params: { path: { id: list.id }, query: { per_page: 50 } } })),
    [api, list.id],
  );
  const { error, act } = useAction(members.reload);
  const [address, setAddress] = useState("");
  return (
    <div>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void act(() =>
            must(api.POST("/v3/lists/{id}/members", { params: { path: { id: list.id } }, body: { address: address.trim() } })).then(() =>
              setAddress(""),
            ),
          );
        }}
      >
        <label>
          Member address
          <input type="email" required value={address} onInput={(e) => setAddress((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Add member</button>
      </form>
      <Problem error={error ?? members.error} />
      <ul>
        {members.data?.items.map((m) => (
          <li key={m.id}>
            {m.address} {m.subscribed === false && <span class="muted">(unsubscribed)</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Lists({ api }: { api: Api }) {
  const lists = useLoad(() => must(api.GET("/v3/lists", { params: { query: { per_page: 50 } } })), [api]);
  const { error, act } = useAction(lists.reload);
  const [address, setAddress] = useState("");
  const [name, setName] = useState("");
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Page title="Lists">
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void act(() =>
            must(api.POST("/v3/lists", { body: { address: address.trim(), name: name.trim() } })).then(() => {
              setAddress("");
              setName("");
            }),
          );
        }}
      >
        <label>
          List address
          <input type="email" required value={address} onInput={(e) => setAddress((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          List name
          <input required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Create list</button>
      </form>
      <Problem error={error ?? lists.error} />
      {lists.data?.items.map((l) => (
        <section key={l.id} class="card" aria-label={l.name}>
          <div class="page-head">
            <h2>
              {l.name} <span class="muted">{l.address}</span>
            </h2>
            <span>{l.member_count} members</span>
          </div>
          <button type="button" aria-expanded={open === l.id} onClick={() => setOpen(open === l.id ? null : l.id)}>
            {open === l.id ? "Hide members" : "Show members"}
          </button>
          {open === l.id && <Members api={api} list={l} />}
        </section>
      ))}
    </Page>
  );
}

type BulkJob = Schemas["BulkVerificationJob"];
const BULK_DONE: Schemas["BulkStatus"][] = ["completed", "failed", "expired", "deleted", "paused"];
/** What a request body may carry as `csv` (README, Address verification: larger files are a presigned upload). */
export const BULK_CSV_MAX_CHARS = 5_000_000;
const SUMMARY_KEYS = ["valid", "invalid", "catch_all", "unknown", "do_not_mail", "spamtrap", "abuse"] as const;

/** A CSV file of addresses as one bulk job: posted as `csv`, then polled until it ends. */
export async function runBulk(api: Api, file: File, onJob: (job: BulkJob) => void, pollMs = 1000): Promise<BulkJob> {
  const csv = await file.text();
  if (csv.length > BULK_CSV_MAX_CHARS) {
    throw new Error(`${file.name} is over ${BULK_CSV_MAX_CHARS.toLocaleString("en")} characters: upload it with the API's presigned upload (README, Address verification).`);
  }
  const accepted = await must(api.POST("/v3/validate/bulk", { body: { csv, filename: file.name } }));
  for (;;) {
    const job = await must(api.GET("/v3/validate/bulk/{id}", { params: { path: { id: accepted.job_id } } }));
    onJob(job);
    if (BULK_DONE.includes(job.status)) return job;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

function BulkVerify({ api }: { api: Api }) {
  const [job, setJob] = useState<BulkJob>();
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);
  const start = async (file: File) => {
    setError(undefined);
    setJob(undefined);
    setBusy(true);
    try {
      await runBulk(api, file, setJob);
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="bulk-title">
      <h2 id="bulk-title">Verify a CSV file</h2>
      <p class="muted">A header row with an email column (any position; other columns are ignored), then one address a row.</p>
      <label>
        Addresses CSV
        <input
          type="file"
          accept=".csv,text/csv"
          disabled={busy}
          onChange={(e) => {
            const file = (e.target as HTMLInputElement).files?.[0];
            if (file) void start(file);
          }}
        />
      </label>
      <Problem error={error} />
      {job && (
        <div role="status" aria-label="Bulk verification progress">
          <progress max={job.total_count || 1} value={job.total_count ? job.processed_count : 0} aria-label="Addresses checked" />{" "}
          <span>
            {job.status}: {job.processed_count} of {job.total_count} addresses checked
            {job.skipped > 0 && `, ${job.skipped} rows skipped`}
          </span>
          {job.error_message && <p class="problem">{job.error_message}</p>}
          {BULK_DONE.includes(job.status) && (
            <dl class="facts" aria-label="Summary">
              {SUMMARY_KEYS.map((key) => (
                <Fragment key={key}>
                  <dt>{key.replace(/_/g, " ")}</dt>
                  <dd>{job.summary[key] ?? 0}</dd>
                </Fragment>
              ))}
            </dl>
          )}
          {job.errors.length > 0 && (
            <ul>
              {job.errors.map((row) => (
                <li key={row.row}>
                  Row {row.row} ({row.email || "empty"}): {row.reason.replace(/_/g, " ")}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}

export function Verification({ api }: { api: Api }) {
  const [email, setEmail] = useState("");
  const [result, setResult] = useState<Schemas["ValidationResult"]>();
  const { error, act } = useAction(() => {});
  return (
    <Page title="Verification">
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => setResult(await must(api.POST("/v3/validate", { body: { email: email.trim() } }))));
        }}
      >
        <label>
          Address to verify
          <input required value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Verify</button>
      </form>
      <Problem error={error} />
      {result && (
        <section class="card" aria-label="Verification result" role="status">
          <h2>
            {result.address}: <span class="pill">{result.result}</span>
          </h2>
          <dl class="facts">
            <dt>Recommendation</dt>
            <dd>{result.recommendation}</dd>
            <dt>Reason</dt>
            <dd>{result.reason}</dd>
            <dt>Risk</dt>
            <dd>{result.risk}</dd>
            <dt>MX</dt>
            <dd>{result.mx_found ? (result.mx_record ?? "found") : "none"}</dd>
            {result.did_you_mean && (
              <>
                <dt>Did you mean</dt>
                <dd>{result.did_you_mean}</dd>
              </>
            )}
          </dl>
        </section>
      )}
      <BulkVerify api={api} />
    </Page>
  );
}
