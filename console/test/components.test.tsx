import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { afterEach, describe, expect, it } from "vitest";
import { createApi } from "../src/api/client";
import type { Schemas } from "../src/api/client";
import { LineChart, QuotaBar, Tile } from "../src/components/ui";
import { change, pct, toCsv } from "../src/format";
import { Activity, eventsCsv, inMode, merge } from "../src/pages/Activity";
import { PREVIEW_CSP, Preview, Score, bodies, safePreview, timelines } from "../src/pages/Message";
import { parseRoute } from "../src/router";

afterEach(cleanup);

const event = (id: string, extra: Partial<Schemas["EventView"]> = {}): Schemas["EventView"] => ({
  id,
  type: "delivered",
  message_id: "msg_1",
  recipient: "a@example.com",
  timestamp: "2026-11-28T10:00:00Z",
  tags: [],
  metadata: null,
  created_at: "2026-11-28T10:00:00Z",
  ...extra,
});

describe("formatting", () => {
  it("writes rates, changes and CSV", () => {
    expect(pct(0.1234)).toBe("12.3%");
    expect(pct(null)).toBe("—");
    expect(change(2.25, "pp")).toBe("+2.3 pp");
    expect(change(-10, "%")).toBe("−10.0%");
    expect(change(null, "%")).toBe("no previous data");
    expect(toCsv(["a", "b"], [["x,y", 'say "hi"'], ["=SUM(A1)", null]])).toBe('a,b\r\n"x,y","say ""hi"""\r\n\'=SUM(A1),\r\n');
  });
});

describe("routes", () => {
  it("parses hash routes", () => {
    expect(parseRoute("#/messages/msg_1").page).toBe("messages");
    expect(parseRoute("#/messages/msg_1").id).toBe("msg_1");
    expect(parseRoute("").page).toBe("overview");
    expect(parseRoute("#/activity?x=1").query.get("x")).toBe("1");
  });
});

describe("components", () => {
  it("a quota bar is a labelled meter", () => {
    render(<QuotaBar label="Emails" used={90} limit={100} />);
    const meter = screen.getByRole("meter", { name: "Emails" });
    expect(meter.getAttribute("aria-valuenow")).toBe("90");
    expect(meter.className).toContain("bar-high");
    expect(screen.getByText("90 / 100")).toBeTruthy();
  });

  it("an unlimited quota says so", () => {
    render(<QuotaBar label="Verifications" used={3} limit={null} />);
    expect(screen.getByText("3 / unlimited")).toBeTruthy();
  });

  it("a tile colours a change by whether it is good", () => {
    render(<Tile label="Bounced" value="2.0%" delta={1.5} unit="pp" better="down" />);
    expect(screen.getByText(/\+1.5 pp/).className).toContain("bad");
  });

  it("the chart names itself and totals its series", () => {
    render(<LineChart title="Sent per day" labels={["1 Nov", "2 Nov"]} series={[{ name: "Sent", values: [2, 3], className: "s" }]} />);
    expect(screen.getByRole("img", { name: "Sent per day" })).toBeTruthy();
    expect(screen.getByText("Sent: 5")).toBeTruthy();
  });

  it("the preview is sandboxed, with the text part beside it", () => {
    render(<Preview html={'<p>Hi</p><script>alert(1)</script><a href="https://example.com/x">go</a>'} text="Hi" />);
    const frame = screen.getByTitle("HTML part");
    expect(frame.getAttribute("sandbox")).toBe("");
    const srcdoc = frame.getAttribute("srcdoc") ?? "";
    expect(srcdoc).toContain(PREVIEW_CSP);
    expect(srcdoc).not.toContain("<script");
    expect(srcdoc).not.toContain('href="https://example.com/x"');
    expect(screen.getByText("https://example.com/x")).toBeTruthy();
    expect(screen.getByLabelText("Text part").textContent).toBe("Hi");
  });

  it("the CSP comes first and the message's own policy or base cannot loosen it", () => {
    const { srcdoc, links } = safePreview(
      '<html><head><meta http-equiv="Content-Security-Policy" content="default-src *"><base href="https://evil.test/"></head><body><a href="https://a.test/1">a</a><a href="https://a.test/1">again</a></body></html>',
    );
    expect(srcdoc.indexOf(PREVIEW_CSP)).toBeLessThan(srcdoc.indexOf("<body"));
    expect(srcdoc).not.toContain("default-src *");
    expect(srcdoc).not.toContain("evil.test");
    expect(links).toEqual(["https://a.test/1"]);
  });

  it("no content is no preview", () => {
    render(<Preview html={null} text={null} />);
    expect(screen.getByText(/No preview/)).toBeTruthy();
  });

  it("picks the body parts of a recipient's copy, not attachments", () => {
    const copy = {
      recipient: "a@example.com",
      headers: [],
      raw: "",
      parts: [
        { content_type: "text/plain", size_bytes: 2, content: "Hi" },
        { content_type: "text/html", size_bytes: 9, content: "<p>Hi</p>" },
        { content_type: "text/plain", size_bytes: 5, disposition: "attachment", filename: "a.txt", content: null },
      ],
    };
    expect(bodies(copy)).toEqual({ html: "<p>Hi</p>", text: "Hi" });
    expect(bodies(undefined)).toEqual({ html: null, text: null });
  });

  it("shows the score, the verdict and the rules that hit", () => {
    render(
      <Score
        check={{
          score: 83,
          verdict: "review",
          parts: [
            { name: "content", weight: 20, status: "warn", earned: 10, fix: "Add a text part.", rules: [
              { id: "text_part", status: "warn", detail: "No text/plain part", fix: "Add a text part." },
              { id: "html_size", status: "pass", detail: "3 KB" },
            ] },
            { name: "spamassassin", weight: 35, status: "pass", earned: 35, rules: [
              { id: "HTML_MESSAGE", status: "pass", detail: "HTML included in message", points: 0.001 },
            ] },
          ],
        }}
      />,
    );
    expect(screen.getByText("83")).toBeTruthy();
    expect(screen.getByText("review").className).toContain("v-review");
    expect(screen.getByText("text_part")).toBeTruthy();
    expect(screen.getByText("HTML_MESSAGE")).toBeTruthy(); // added points: a hit
    expect(screen.queryByText("html_size")).toBeNull(); // passed with no points: not a hit
  });

  it("a message without a check is not scored", () => {
    render(<Score check={null} />);
    expect(screen.getByText("not scored")).toBeTruthy();
  });
});

describe("activity", () => {
  it("keeps test and live apart by the events' test flag", () => {
    const simulated = event("e1", { metadata: { test: true } });
    const real = event("e2");
    expect(inMode(simulated, "test")).toBe(true);
    expect(inMode(simulated, "live")).toBe(false);
    expect(inMode(real, "live")).toBe(true);
  });

  it("merges a refresh without repeating events", () => {
    expect(merge([event("3"), event("2")], [event("2"), event("1")]).map((e) => e.id)).toEqual(["3", "2", "1"]);
  });

  it("exports the events as CSV", () => {
    expect(eventsCsv([event("e1", { tags: ["a", "b"] })]).split("\r\n")[1]).toBe(
      "2026-11-28T10:00:00Z,delivered,msg_1,a@example.com,a b,e1",
    );
  });

  it("timelines group a message's events by recipient, oldest first", () => {
    const byRecipient = timelines([
      event("b", { timestamp: "2026-11-28T10:00:02Z" }),
      event("a", { timestamp: "2026-11-28T10:00:01Z" }),
      event("c", { recipient: "b@example.com" }),
    ]);
    expect([...byRecipient.keys()]).toEqual(["b@example.com", "a@example.com"]); // by first event
    expect(byRecipient.get("a@example.com")!.map((e) => e.id)).toEqual(["a", "b"]);
  });

  it("lists the mode's events and filters through the API", async () => {
    const queries: URLSearchParams[] = [];
    const fetcher = (async (request: Request) => {
      const url = new URL(request.url);
      queries.push(url.searchParams);
      const items = [event("e1", { metadata: { test: true }, recipient: "t@example.com" }), event("e2", { recipient: "l@example.com" })];
      return new Response(JSON.stringify({ items, has_more: false, next_cursor: null, total_count: 2 }), { status: 200 });
    }) as unknown as typeof fetch;
    const api = createApi(() => "t", "http://api.test", fetcher);
    render(<Activity api={api} env="test" />);
    await waitFor(() => expect(screen.getByText("t@example.com")).toBeTruthy());
    expect(screen.queryByText("l@example.com")).toBeNull();
    fireEvent.input(screen.getByLabelText("Tag"), { target: { value: "welcome" } });
    fireEvent.submit(screen.getByRole("button", { name: "Filter" }).closest("form")!);
    await waitFor(() => expect(queries.some((q) => q.get("tag") === "welcome")).toBe(true));
  });
});

describe("templates", () => {
  it("previews the edited template as the API renders it, in a sandboxed frame under the preview CSP", async () => {
    const renders: unknown[] = [];
    const fetcher = (async (input: Request) => {
      if (input.url.endsWith("/v3/templates/render")) {
        const body = (await input.json()) as { html: string; vars: Record<string, string> };
        renders.push(body);
        const html = body.html.replace("{{name}}", (body.vars.name ?? "").replace("<", "&lt;").replace(">", "&gt;"));
        const rendered = { template_id: null, version: null, subject: null, html, text_body: null, variables: ["name", "plan"], missing_variables: ["plan"] };
        return new Response(JSON.stringify(rendered), { status: 200, headers: { "Content-Type": "application/json" } });
      }
      return new Response(JSON.stringify({ items: [], pagination: { page: 1, per_page: 50, total_count: 0, total_pages: 0 } }), {
        status: 200,
        headers: { "Content-Type": "application/json" },
      });
    }) as unknown as typeof fetch;
    const { Templates } = await import("../src/pages/More");
    render(<Templates api={createApi(() => "t", "http://api.test", fetcher)} />);
    fireEvent.input(screen.getByLabelText("HTML"), { target: { value: "<h1>Hi {{name}}</h1>" } });
    fireEvent.input(screen.getByLabelText("Sample variables (JSON)"), { target: { value: '{"name": "<Ann>"}' } });
    await waitFor(() => expect(screen.getByTitle("Template preview").getAttribute("srcdoc")).toContain("Hi &lt;Ann&gt;"));
    const frame = screen.getByTitle("Template preview");
    expect(frame.getAttribute("sandbox")).toBe("");
    expect(frame.getAttribute("srcdoc")).toContain("default-src 'none'");
    expect(screen.getByText("Not given (rendered empty): plan")).toBeTruthy();
    expect(renders.at(-1)).toEqual({ subject: null, html: "<h1>Hi {{name}}</h1>", vars: { name: "<Ann>" } });
  });

  it("says so when the sample variables are not a JSON object, without asking the API", async () => {
    let asked = 0;
    const fetcher = (async (input: Request) => {
      if (input.url.endsWith("/v3/templates/render")) asked += 1;
      return new Response(JSON.stringify({ items: [], pagination: { page: 1, per_page: 50, total_count: 0, total_pages: 0 } }), {
        status: 200,
        headers: { "Content-Type": "application/json" },
      });
    }) as unknown as typeof fetch;
    const { Templates } = await import("../src/pages/More");
    render(<Templates api={createApi(() => "t", "http://api.test", fetcher)} />);
    const before = asked;
    fireEvent.input(screen.getByLabelText("Sample variables (JSON)"), { target: { value: "[1, 2]" } });
    await waitFor(() => expect(screen.getByText("Sample variables must be a JSON object.")).toBeTruthy());
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(asked).toBe(before);
  });
});
