// Values of results.json in words, for people: numbers rounded with their unit, camelCase keys as
// words, lists and objects as phrases, times in the reader's terms. Never raw JSON.

/** `emissionIntervalFromRecoveryMs` -> label `emission interval from recovery`, unit `ms`. */
export function humanKey(key: string): { label: string; unit?: string } {
  const unit = /[a-z]Ms$/.test(key) ? 'ms' : undefined;
  const base = unit ? key.slice(0, -2) : key;
  const label = base
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase()
    .trim();
  return unit ? { label, unit } : { label };
}

/** A number as people read it: at most 3 decimals, thousands grouped. */
export function num(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const rounded = Math.round(v * 1000) / 1000;
  return rounded.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

/** Any value in words: yes/no, none, lists joined, objects as `label: value` pairs. */
export function words(v: unknown, unit?: string): string {
  if (v === null || v === undefined) return 'none';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'number') return unit ? `${num(v)} ${unit}` : num(v);
  if (typeof v === 'string') return v === '' ? '(empty)' : v;
  if (Array.isArray(v)) return v.length ? v.map((x) => words(x)).join(', ') : 'none';
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    if (!entries.length) return 'none';
    return entries
      .map(([k, x]) => {
        const h = humanKey(k);
        return `${h.label}: ${words(x, h.unit)}`;
      })
      .join('; ');
  }
  return String(v);
}

const TIME_PARTS: Intl.DateTimeFormatOptions = {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  timeZoneName: 'short',
};

/**
 * A moment as people read it, in the time zone of the machine that wrote the report (the page's
 * script rewrites it in the reader's own zone; the same options are in the page).
 */
export function humanTime(iso: string): string {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? humanFormat().format(t) : iso;
}

// One formatter for every moment of a report: making one costs far more than using it (25-30 ms,
// ICU's data for the locale).
let format: Intl.DateTimeFormat | undefined;
const humanFormat = () => (format ??= new Intl.DateTimeFormat('en-GB', TIME_PARTS));

export const TIME_OPTIONS_JSON = JSON.stringify(TIME_PARTS);
