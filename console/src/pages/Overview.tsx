import { useState } from "preact/hooks";
import { type Api, must } from "../api/client";
import { LineChart, Loading, Page, Problem, QuotaBar, Tile, useLoad } from "../components/ui";
import { num, pct } from "../format";

const ZONES = ["UTC", "Europe/London", "Europe/Berlin", "America/New_York", "America/Los_Angeles", "Asia/Tokyo", "Australia/Sydney"];
const DAY = 24 * 3600 * 1000;

function windowOf(days: number, now = Date.now()) {
  return { since: new Date(now - days * DAY).toISOString(), until: new Date(now).toISOString() };
}

function Summary({ api, days, title }: { api: Api; days: number; title: string }) {
  const { data, error, loading } = useLoad(
    () =>
      must(api.GET("/v3/metrics/summary", { params: { query: { ...windowOf(days), compare: "previous_period" } } })),
    [api, days],
  );
  const delta = data?.comparison?.delta;
  return (
    <section class="card" aria-labelledby={`summary-${days}`}>
      <h2 id={`summary-${days}`}>{title}</h2>
      <Loading when={loading && !data} />
      <Problem error={error} />
      {data && (
        <div class="tiles">
          <Tile label="Sent" value={num(data.delivery.sent)} delta={delta?.sent_pct_change} unit="%" />
          <Tile label="Delivered" value={pct(data.delivery.delivery_rate)} delta={delta?.delivery_rate_pp} unit="pp" />
          <Tile label="Bounced" value={pct(data.delivery.bounce_rate)} delta={delta?.bounce_rate_pp} unit="pp" better="down" />
          <Tile
            label="Complaints"
            value={pct(data.delivery.complaint_rate, 2)}
            delta={delta?.complaint_rate_pp}
            unit="pp"
            better="down"
          />
          <Tile label="Opened" value={pct(data.engagement.open_rate)} delta={delta?.open_rate_pp} unit="pp" />
          <Tile label="Clicked" value={pct(data.engagement.click_rate)} delta={delta?.click_rate_pp} unit="pp" />
        </div>
      )}
    </section>
  );
}

export function Overview({ api }: { api: Api }) {
  const [zone, setZone] = useState("UTC");
  const usage = useLoad(() => must(api.GET("/v3/usage")), [api]);
  const series = useLoad(
    () => must(api.GET("/v3/metrics/timeseries", { params: { query: { ...windowOf(30), timezone: zone, resolution: "day" } } })),
    [api, zone],
  );
  const bounces = useLoad(
    () =>
      must(
        api.GET("/v3/metrics/breakdown", {
          params: { query: { ...windowOf(30), dimension: "bounce_code", sort: "bounced", limit: 5 } },
        }),
      ),
    [api],
  );
  const points = series.data?.data ?? [];
  const day = new Intl.DateTimeFormat("en-GB", { timeZone: zone, day: "numeric", month: "short" });
  return (
    <Page title="Overview">
      <section class="card" aria-labelledby="usage-title">
        <h2 id="usage-title">Usage this period</h2>
        <Loading when={usage.loading && !usage.data} />
        <Problem error={usage.error} />
        {usage.data && (
          <>
            <QuotaBar label="Emails" used={usage.data.emails.used} limit={usage.data.emails.limit} />
            {usage.data.daily && <QuotaBar label="Emails today" used={usage.data.daily.used} limit={usage.data.daily.limit} />}
            <QuotaBar label="Verifications" used={usage.data.verify_credits.used} limit={usage.data.verify_credits.limit} />
            <p class="muted">
              Plan {usage.data.plan}; period {usage.data.period.start?.slice(0, 10)} to {usage.data.period.end?.slice(0, 10)}.
            </p>
          </>
        )}
      </section>
      <Summary api={api} days={1} title="Last 24 hours" />
      <Summary api={api} days={30} title="Last 30 days" />
      <section class="card" aria-labelledby="series-title">
        <div class="page-head">
          <h2 id="series-title">Sent and delivered per day</h2>
          <label>
            Time zone{" "}
            <select value={zone} onChange={(e) => setZone((e.target as HTMLSelectElement).value)}>
              {ZONES.map((z) => (
                <option key={z} value={z}>
                  {z}
                </option>
              ))}
            </select>
          </label>
        </div>
        <Problem error={series.error} />
        <LineChart
          title="Sent, delivered and bounced per day over the last 30 days"
          labels={points.map((p) => day.format(new Date(p.timestamp)))}
          series={[
            { name: "Sent", values: points.map((p) => p.sent), className: "s-sent" },
            { name: "Delivered", values: points.map((p) => p.delivered), className: "s-delivered" },
            { name: "Bounced", values: points.map((p) => p.bounced), className: "s-bounced" },
          ]}
        />
      </section>
      <section class="card" aria-labelledby="bounce-title">
        <h2 id="bounce-title">Top bounce reasons (30 days)</h2>
        <Problem error={bounces.error} />
        {bounces.data && bounces.data.data.filter((r) => r.bounced > 0).length === 0 && <p class="muted">No bounces.</p>}
        <ol class="reasons">
          {bounces.data?.data
            .filter((r) => r.bounced > 0)
            .map((row) => (
              <li key={row.key}>
                <span>{row.label ?? row.key}</span> <strong>{num(row.bounced)}</strong>
              </li>
            ))}
        </ol>
      </section>
    </Page>
  );
}
