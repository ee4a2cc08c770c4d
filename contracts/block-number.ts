// Reading "the current block number" from the universal endpoint, whose body the description does
// not show (UNI-01: its shape is observed). The reader looks for the number where services put it
// and reports where it found it, so a changed shape shows in the observation.

export interface FoundNumber {
  /** The value as read (may be negative or fractional: the check judges it). */
  value: number;
  /** Dotted path of the field, `(root)` for a bare number. */
  path: string;
  /** How it was written: `integer`, `number`, `decimal string`, `hex string`. */
  encoding: string;
}

const KEYS =
  /^(block_?number|blocknumber|block_?height|height|latest_?block(_?number)?|number|head|result|data|block)$/i;
const MAX_DEPTH = 3;

function asNumber(v: unknown): Omit<FoundNumber, 'path'> | undefined {
  if (typeof v === 'number' && Number.isFinite(v))
    return { value: v, encoding: Number.isInteger(v) ? 'integer' : 'number' };
  if (typeof v === 'string') {
    if (/^-?\d{1,16}$/.test(v)) return { value: Number(v), encoding: 'decimal string' };
    if (/^0x[0-9a-f]{1,13}$/i.test(v)) return { value: parseInt(v.slice(2), 16), encoding: 'hex string' };
  }
  return undefined;
}

/** The block number in a body, or undefined when no field looks like one. */
export function readBlockNumber(json: unknown, path = '', depth = 0): FoundNumber | undefined {
  const direct = asNumber(json);
  if (direct) return { ...direct, path: path || '(root)' };
  if (depth >= MAX_DEPTH || typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const entries = Object.entries(json as Record<string, unknown>).filter(([k]) => KEYS.test(k));
  // Scalars first (the number itself), then nested objects that may hold it.
  for (const [k, v] of entries) {
    const n = asNumber(v);
    if (n) return { ...n, path: path ? `${path}.${k}` : k };
  }
  for (const [k, v] of entries) {
    const nested = readBlockNumber(v, path ? `${path}.${k}` : k, depth + 1);
    if (nested) return nested;
  }
  return undefined;
}
