// Domains, suppressions, keys and the audit log: lists with the few actions people need most.
import { useState } from "preact/hooks";
import { type Api, type Schemas, must } from "../api/client";
import { Loading, Page, Problem, useLoad } from "../components/ui";
import { when } from "../format";

function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="small"
      aria-label={`${done ? "Copied" : "Copy"} ${label}`}
      onClick={() =>
        navigator.clipboard?.writeText(text).then(
          () => setDone(true),
          () => setDone(false),
        )
      }
    >
      {done ? "Copied" : "Copy"}
    </button>
  );
}

export function Domains({ api, env }: { api: Api; env: Schemas["Environment"] }) {
  if (env === "test")
    return (
      <Page title="Domains">
        <p class="card">Sending domains serve both modes; the API shows them to live credentials only. Switch to Live to manage them.</p>
      </Page>
    );
  return <DomainList api={api} />;
}

function DomainList({ api }: { api: Api }) {
  const list = useLoad(() => must(api.GET("/v3/domains")), [api]);
  const [name, setName] = useState("");
  const [error, setError] = useState<Error>();
  const act = async (work: () => Promise<unknown>) => {
    try {
      setError(undefined);
      await work();
      list.reload();
    } catch (e) {
      setError(e as Error);
    }
  };
  return (
    <Page title="Domains">
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void act(() => must(api.POST("/v3/domains", { body: { domain: name.trim() } })).then(() => setName("")));
        }}
      >
        <label>
          Domain
          <input required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} placeholder="mail.example.com" />
        </label>
        <button type="submit">Add domain</button>
      </form>
      <Problem error={error ?? list.error} />
      <Loading when={list.loading && !list.data} />
      {list.data?.items.length === 0 && <p class="muted">No domains yet.</p>}
      {list.data?.items.map((d: Schemas["Domain"]) => (
        <section key={d.id} class="card" aria-label={d.domain}>
          <div class="page-head">
            <h2>
              {d.domain} <span class={`pill d-${d.status}`}>{d.status}</span>
            </h2>
            <button type="button" onClick={() => act(() => must(api.POST("/v3/domains/{id}/verify", { params: { path: { id: d.id } } })))}>
              Check now
            </button>
          </div>
          <div class="table-wrap">
            <table>
              <caption class="sr-only">DNS records of {d.domain}</caption>
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Host</th>
                  <th scope="col">Value</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {d.dns_records.map((r, i) => (
                  <tr key={i}>
                    <td>{r.type}</td>
                    <td>
                      <code>{r.host}</code> <CopyButton text={r.host} label={`${r.type} host`} />
                    </td>
                    <td class="wrap">
                      <code>{r.value}</code> <CopyButton text={r.value} label={`${r.type} value`} />
                    </td>
                    <td>{r.ok ? "ok" : r.status}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ))}
    </Page>
  );
}

const SUPPRESSION_TYPES: Schemas["SuppressionType"][] = ["bounces", "unsubscribes", "complaints", "allowlist"];
export const IMPORT_POLL_MS = 1000;

/** A CSV file into one list: posted whole, then its progress polled until done or failed. */
function ImportCsv({ api, onDone }: { api: Api; onDone: () => void }) {
  const [type, setType] = useState<Schemas["SuppressionType"]>("bounces");
  const [view, setView] = useState<Schemas["SuppressionImportView"]>();
  const [error, setError] = useState<Error>();
  const start = async (file: File) => {
    try {
      setError(undefined);
      setView(undefined);
      const accepted = await must(api.POST("/v3/suppressions/import", { body: { type, filename: file.name, csv: await file.text() } }));
      for (;;) {
        const current = await must(api.GET("/v3/suppressions/imports/{id}", { params: { path: { id: accepted.import_id } } }));
        setView(current);
        if (current.status === "done" || current.status === "failed") break;
        await new Promise((resolve) => setTimeout(resolve, IMPORT_POLL_MS));
      }
      onDone();
    } catch (e) {
      setError(e as Error);
    }
  };
  return (
    <section class="card" aria-labelledby="import-title">
      <h2 id="import-title">Import a CSV</h2>
      <p class="muted">A header row naming email (and optionally reason, created_at), then one address a row.</p>
      <div class="filters">
        <label>
          Into list
          <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value as Schemas["SuppressionType"])}>
            {SUPPRESSION_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          CSV file
          <input
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => {
              const file = (e.target as HTMLInputElement).files?.[0];
              if (file) void start(file);
            }}
          />
        </label>
      </div>
      <Problem error={error} />
      {view && (
        <div role="status" aria-label="Import progress">
          <progress max={view.total_rows ?? 1} value={view.total_rows ? view.processed_rows : 0} aria-label="Rows imported" />{" "}
          <span>
            {view.status}: {view.processed_rows} of {view.total_rows ?? "?"} rows, {view.added} added, {view.skipped} skipped
          </span>
          {view.errors && view.errors.length > 0 && (
            <ul>
              {view.errors.map((row) => (
                <li key={row.row}>
                  Row {row.row} ({row.email || "empty"}): {row.reason}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}

export function Suppressions({ api }: { api: Api }) {
  const [search, setSearch] = useState("");
  const [type, setType] = useState<Schemas["SuppressionType"]>("bounces");
  const [email, setEmail] = useState("");
  const [error, setError] = useState<Error>();
  const list = useLoad(
    () => must(api.GET("/v3/suppressions", { params: { query: { per_page: 50, ...(search ? { email: search } : {}) } } })),
    [api, search],
  );
  const act = async (work: () => Promise<unknown>) => {
    try {
      setError(undefined);
      await work();
      list.reload();
    } catch (e) {
      setError(e as Error);
    }
  };
  return (
    <Page title="Suppressions">
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setSearch(((e.currentTarget as HTMLFormElement).elements.namedItem("q") as HTMLInputElement).value.trim());
        }}
      >
        <label>
          Search by address
          <input name="q" type="email" />
        </label>
        <button type="submit">Search</button>
      </form>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void act(() => must(api.POST("/v3/suppressions", { body: { type, email: email.trim() } })).then(() => setEmail("")));
        }}
      >
        <label>
          List
          <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value as Schemas["SuppressionType"])}>
            {SUPPRESSION_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          Address
          <input type="email" required value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Add</button>
      </form>
      <ImportCsv api={api} onDone={list.reload} />
      <Problem error={error ?? list.error} />
      {list.data && <p class="muted">{list.data.pagination.total_count} entries</p>}
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Suppressed addresses</caption>
          <thead>
            <tr>
              <th scope="col">Address</th>
              <th scope="col">List</th>
              <th scope="col">Reason</th>
              <th scope="col">Added</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data?.items.map((s) => (
              <tr key={s.id}>
                <td>{s.email}</td>
                <td>{s.type}</td>
                <td>{s.reason ?? "—"}</td>
                <td>{when(s.created_at)}</td>
                <td>
                  <button
                    type="button"
                    class="small"
                    aria-label={`Remove ${s.email} from ${s.type}`}
                    onClick={() =>
                      act(() =>
                        must(
                          api.DELETE("/v3/suppressions/{id}", {
                            params: { path: { id: s.id } },
                            ...(s.type === "unsubscribes" ? { body: { remove_unsubscribes: true } } : {}),
                          }),
                        ),
                      )
                    }
                  >
                    Remove
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

export function Keys({ api, env }: { api: Api; env: Schemas["Environment"] }) {
  const list = useLoad(() => must(api.GET("/v3/keys", { params: { query: { per_page: 100 } } })), [api]);
  const [name, setName] = useState("");
  const [scope, setScope] = useState<Schemas["Scope"]>("full_access");
  const [created, setCreated] = useState<Schemas["KeyCreated"]>();
  const [error, setError] = useState<Error>();
  return (
    <Page title={`API keys (${env})`}>
      <form
        class="filters"
        onSubmit={async (e) => {
          e.preventDefault();
          try {
            setError(undefined);
            setCreated(await must(api.POST("/v3/keys", { body: { name: name.trim(), scope, env } })));
            setName("");
            list.reload();
          } catch (err) {
            setError(err as Error);
          }
        }}
      >
        <label>
          Name
          <input required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Scope
          <select value={scope} onChange={(e) => setScope((e.target as HTMLSelectElement).value as Schemas["Scope"])}>
            <option value="full_access">full_access</option>
            <option value="send_only">send_only</option>
            <option value="read_only">read_only</option>
          </select>
        </label>
        <button type="submit">Create key</button>
      </form>
      {created && (
        <div class="card secret" role="status">
          <p>
            <strong>Copy this key now: it is shown once.</strong>
          </p>
          <code>{created.key}</code>
        </div>
      )}
      <Problem error={error ?? list.error} />
      <div class="table-wrap">
        <table>
          <caption class="sr-only">API keys of this environment</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scope</th>
              <th scope="col">Mode</th>
              <th scope="col">Last used</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.items.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.prefix}</code>
                </td>
                <td>{k.scope}</td>
                <td>{k.env}</td>
                <td>{when(k.last_used_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}

export function Audit({ api }: { api: Api }) {
  const [page, setPage] = useState(1);
  const list = useLoad(() => must(api.GET("/v3/audit", { params: { query: { page, per_page: 50 } } })), [api, page]);
  const pages = list.data?.pagination.total_pages ?? 1;
  return (
    <Page title="Audit log">
      <Problem error={list.error} />
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Who changed what, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Action</th>
              <th scope="col">Actor</th>
              <th scope="col">Target</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.items.map((a) => (
              <tr key={a.id}>
                <td>{when(a.created_at)}</td>
                <td>{a.action}</td>
                <td>
                  {a.actor_type} {a.actor_email ?? a.actor_id ?? ""}
                </td>
                <td>{a.target ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav class="actions" aria-label="Audit log pages">
        <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Newer
        </button>
        <span>
          Page {page} of {pages}
        </span>
        <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
          Older
        </button>
      </nav>
    </Page>
  );
}
