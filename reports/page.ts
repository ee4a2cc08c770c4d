// Self-contained HTML pages (no external resources) for the bench and self-check reports. Text
// goes through the report writers' own escaping (reports/text.ts).
import { esc } from './text.js';

export { esc };

/** A table from a header row and cells that are already escaped HTML (use `esc`). */
export function htmlTable(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  rowClass?: (i: number) => string,
): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join('');
  const trs = rows
    .map(
      (r, i) => `<tr${rowClass ? ` class="${esc(rowClass(i))}"` : ''}>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${trs}\n</tbody></table>`;
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3}tr.good .status{color:#0a6b0a}tr.bad .status,tr.bad td:first-child{color:#b00020;font-weight:600}
tr.warn .status{color:#8a5a00}code{background:#f5f5f5;padding:0 3px}.muted{color:#666}.nowrap{white-space:nowrap}`;

export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>${STYLE}</style></head>
<body><h1>${esc(title)}</h1>
${body}
</body></html>
`;
}
