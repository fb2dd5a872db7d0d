export function pct(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined ? "—" : `${(value * 100).toFixed(digits)}%`;
}

export function num(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : value.toLocaleString("en-US");
}

/** A signed change: "+12.5%" for a percent change, "+1.2 pp" for a rate's points. */
export function change(value: number | null | undefined, unit: "%" | "pp"): string {
  if (value === null || value === undefined) return "no previous data";
  const sign = value > 0 ? "+" : value < 0 ? "−" : "±";
  return `${sign}${Math.abs(value).toFixed(1)}${unit === "%" ? "%" : " pp"}`;
}

export function when(iso: string | null | undefined, timeZone?: string): string {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString("en-GB", { timeZone, dateStyle: "medium", timeStyle: "medium" });
}

/** RFC 4180 CSV: every field quoted when it holds a comma, quote or line break. */
export function toCsv(header: string[], rows: (string | number | null | undefined)[][]): string {
  const field = (value: string | number | null | undefined): string => {
    const text = value === null || value === undefined ? "" : String(value);
    // A leading = + - @ would be a formula in a spreadsheet: prefix a quote (OWASP CSV injection).
    const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
    return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return [header, ...rows].map((row) => row.map(field).join(",")).join("\r\n") + "\r\n";
}
