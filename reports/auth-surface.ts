// The auth surface table of index.html: rows are API endpoints (per base URL) and node paths,
// columns the credential forms. Each cell says whether the right credential was accepted there
// (documented or only observed) and whether every wrong one (near misses, the empty value, the
// parameter twice) was refused; a failing cell links to its evidence below the table: the
// redacted request, the status, a body excerpt and a curl line with the credential masked.
// Everything is read back from the checks' `evidence.authProbe` (src/auth/surface.ts).
import { userCommand } from '../src/package.js';
import { AUTH_FORMS } from '../src/auth/forms.js';
import { authProbeOf, type AuthProbe, type SurfaceForm } from '../src/auth/surface.js';
import { WRONG_KIND_LABEL, type WrongKind } from '../src/auth/wrong-credentials.js';
import { curlOf, type Exchange } from '../src/record/recorder.js';
import type { ResultsFile } from '../src/results.js';
import type { CheckResult } from '../src/verdict.js';
import { checkSetOf, type CheckSet } from '../src/check-set.js';
import { esc } from './text.js';

const BODY_EXCERPT = 300;

/**
 * Columns: no credential, then the three API key forms and the three node token forms. A form a
 * transport carries its own way (WebSocket upgrade headers, gRPC metadata) shares the column of
 * the HTTP form with the same name.
 */
const COLUMNS: readonly SurfaceForm[] = ['none', 'bearer', 'x-api-key', 'apikey-query', 'x-auth-token', 'auth-query'];

const COLUMN_LABEL: Record<string, string> = {
  none: 'no credential',
  bearer: 'Authorization: Bearer',
  'x-api-key': 'X-API-Key',
  'apikey-query': 'apiKey=',
  'x-auth-token': 'X-Auth-Token',
  'auth-query': 'auth=',
};

export function columnOf(form: SurfaceForm): SurfaceForm {
  if (form === 'none') return form;
  const f = AUTH_FORMS[form];
  const same = COLUMNS.find(
    (c) =>
      c !== 'none' &&
      AUTH_FORMS[c].name.toLowerCase() === f.name.toLowerCase() &&
      (AUTH_FORMS[c].transport === 'query') === (f.transport === 'query'),
  );
  return same ?? form;
}

interface Cell {
  right?: AuthProbe;
  /** The check only where the wrong credential got data (its evidence is shown): a merge keeps no other. */
  wrong: { probe: AuthProbe; check?: CheckResult }[];
}

/** Whether a wrong credential got data where a correct service refuses it. */
const isBreach = (p: AuthProbe) => p.probe !== 'right' && p.expect === 'refuse' && p.data;

/** Rows in the order of the description: the API families, then the node kinds (stable within each). */
const ROW_ORDER = ['universal', 'native', 'nft', 'blockRest', 'chainB', 'horizon'];
const rowRank = (row: string) => {
  const i = ROW_ORDER.findIndex((p) => row.startsWith(p));
  return i < 0 ? ROW_ORDER.length : i;
};

export interface AuthSurface {
  rows: string[];
  columns: SurfaceForm[];
  cells: Map<string, Map<SurfaceForm, Cell>>;
  requests: number;
}

export function authSurface(checks: Iterable<CheckResult>): AuthSurface {
  const cells = new Map<string, Map<SurfaceForm, Cell>>();
  const used = new Set<SurfaceForm>();
  let requests = 0;
  for (const c of checks) {
    const p = authProbeOf(c);
    if (!p) continue;
    requests++;
    const column = columnOf(p.form);
    used.add(column);
    const row = cells.get(p.row) ?? cells.set(p.row, new Map()).get(p.row)!;
    const cell = row.get(column) ?? row.set(column, { wrong: [] }).get(column)!;
    if (p.probe === 'right') cell.right = p;
    else cell.wrong.push(isBreach(p) ? { probe: p, check: c } : { probe: p });
  }
  return {
    rows: [...cells.keys()].sort((a, b) => rowRank(a) - rowRank(b)),
    columns: [...COLUMNS.filter((f) => used.has(f)), ...[...used].filter((f) => !COLUMNS.includes(f))],
    cells,
    requests,
  };
}

function rightText(cell: Cell, form: SurfaceForm): string {
  if (form === 'none') return '';
  if (!cell.right) return '<span class="muted">right credential not tried</span>';
  if (!cell.right.data) return 'refused with the right credential';
  return cell.right.documented ? 'accepted (documented)' : 'accepted (observed)';
}

/** A wrong credential's kind in plain words (the kind's id stays in the data attributes). */
const kindText = (p: AuthProbe) => WRONG_KIND_LABEL[p.probe as WrongKind] ?? p.probe;

function cellHtml(cell: Cell | undefined, form: SurfaceForm, anchors: Map<CheckResult, string>): string {
  if (!cell) return `<td class="as-empty" data-label="${esc(COLUMN_LABEL[form] ?? form)}">-</td>`;
  const mustRefuse = cell.wrong.filter((w) => w.probe.expect !== 'observe');
  const breaches = mustRefuse.filter((w) => isBreach(w.probe));
  const openData = cell.wrong.filter((w) => w.probe.expect === 'observe' && w.probe.data);
  const parts = [rightText(cell, form)].filter(Boolean);
  if (mustRefuse.length) {
    const what = form === 'none' ? 'request without credential' : 'wrong credential(s)';
    parts.push(
      breaches.length
        ? `<strong>${breaches.length} of ${mustRefuse.length} ${what} got data</strong>`
        : `${mustRefuse.length} of ${mustRefuse.length} ${what} refused`,
    );
  }
  if (breaches.length)
    parts.push(breaches.map((b) => `<a href="#${anchors.get(b.check!)}">${esc(kindText(b.probe))}</a>`).join('; '));
  if (openData.length)
    parts.push(`<span class="muted">open, got data: ${openData.map((o) => esc(kindText(o.probe))).join('; ')}</span>`);
  const state = breaches.length ? 'fail' : cell.right && !cell.right.data && form !== 'none' ? 'refused' : 'ok';
  const label = esc(COLUMN_LABEL[form] ?? form);
  return `<td class="as-${state}" data-auth-cell="${esc(form)}" data-auth-state="${state}" data-label="${label}">${parts.join('<br>')}</td>`;
}

function evidenceHtml(c: CheckResult, anchor: string): string {
  const x = (c.evidence.exchanges ?? [])[0] as Exchange | undefined;
  const body =
    x?.responseBody === undefined
      ? ''
      : x.responseBody.length > BODY_EXCERPT
        ? `${x.responseBody.slice(0, BODY_EXCERPT)}…`
        : x.responseBody;
  const request = x
    ? [`${x.method} ${x.url}`, ...Object.entries(x.requestHeaders).map(([k, v]) => `${k}: ${v}`)].join('\n')
    : '(no exchange recorded)';
  const verdict = `<span class="verdict v-${esc(c.verdict)}">${esc(c.verdict)}</span>`;
  const rule = `<a href="#rule-${esc(c.rule)}">${esc(c.rule)}</a>`;
  const bodyPre = body ? `\n<pre data-field="body">${esc(body)}</pre>` : '';
  const curlPre = x ? `\n<pre data-field="curl">${esc(curlOf(x))}</pre>` : '';
  return `<div class="auth-evidence" id="${anchor}" data-check="${esc(c.id)}">
<p>${verdict} ${rule} <code>${esc(c.id)}</code> ${esc(c.message)}</p>
<pre data-field="request">${esc(request)}</pre>
<p>status ${esc(x?.status ?? x?.error ?? 'none')}</p>${bodyPre}${curlPre}
</div>`;
}

const STYLE = `<style>
#auth-surface td,#auth-surface th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;font-size:12px}
#auth-surface td.as-fail{background:#fde2e1}#auth-surface td.as-refused{background:#fff4d6}#auth-surface td.as-ok{background:#eef8ee}
#auth-surface .auth-evidence pre{white-space:pre-wrap;font-size:12px}
@media (max-width:640px){#auth-surface table,#auth-surface tbody,#auth-surface tr,#auth-surface td,#auth-surface tbody th{display:block}
#auth-surface thead{display:none}#auth-surface tr{margin:0 0 8px}#auth-surface td.as-empty{display:none}
#auth-surface td::before{content:attr(data-label);display:block;font-weight:bold}}
</style>`;

/** How to read the table, after the request count. */
const HOW_TO_READ =
  'A cell is one credential form on one endpoint or node path: ' +
  'whether the right credential was accepted there (documented or only observed), ' +
  'and whether every wrong one (near misses of the real value, the empty value, the query parameter twice) got no data. ' +
  'Wrong credentials go only to forms that accepted the right one; ' +
  'every kind on one endpoint per family and node kind, one rotating kind elsewhere.';

/** The section, or '' when no auth check ran. */
export function authSurfaceSection(results: ResultsFile, checks: CheckSet = checkSetOf(results.checks ?? [])): string {
  const s = authSurface(checks.all());
  if (s.rows.length === 0) return '';
  const anchors = new Map<CheckResult, string>();
  for (const row of s.rows)
    for (const cell of s.cells.get(row)!.values())
      for (const w of cell.wrong) if (w.check) anchors.set(w.check, `auth-ev-${anchors.size + 1}`);
  const seed = typeof results.seed === 'number' ? results.seed : undefined;
  const seedNote =
    seed === undefined
      ? ''
      : `; near-miss seed ${esc(seed)} (<code>${esc(userCommand('start', '--seed', String(seed)))}</code> sends the same near misses)`;
  // On a phone each row becomes a block of its cells, each cell titled by its column (data-label).
  const head = `<thead><tr><th>endpoint / node path</th>${s.columns.map((f) => `<th>${esc(COLUMN_LABEL[f] ?? f)}</th>`).join('')}</tr></thead>`;
  const body = s.rows
    .map(
      (row) =>
        `<tr data-auth-row="${esc(row)}"><th>${esc(row)}</th>${s.columns.map((f) => cellHtml(s.cells.get(row)!.get(f), f, anchors)).join('')}</tr>`,
    )
    .join('\n');
  return `<section id="auth-surface" data-auth-requests="${s.requests}">${STYLE}
<h2>Auth surface</h2>
<p class="meta">${s.requests} requests spent by the auth checks${seedNote}. ${HOW_TO_READ}</p>
<div class="scroll"><table class="auth-surface">${head}<tbody>
${body}</tbody></table></div>
${anchors.size ? `<h3>Wrong credentials that got data</h3>\n${[...anchors].map(([c, a]) => evidenceHtml(c, a)).join('\n')}` : ''}
</section>`;
}
