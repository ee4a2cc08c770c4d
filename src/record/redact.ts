// Redaction: the one place where credential values are turned into safe text. The recorder runs
// every exchange through it, so nothing downstream (reports, traces, logs) ever sees a secret.
import { CREDENTIAL_HEADERS, CREDENTIAL_QUERY_PARAMS } from '../auth/forms.js';
import { withNearMisses } from '../auth/near-miss.js';

export const REDACTED_SUFFIX = '…(redacted)';

/** Keeps at most the first 4 characters, so a person can tell which key it was. */
export function maskSecret(secret: string): string {
  const keep = secret.length >= 12 ? 4 : secret.length >= 8 ? 2 : 0;
  return `${secret.slice(0, keep)}${REDACTED_SUFFIX}`;
}

function variantsOf(secret: string): string[] {
  const forms = new Set([
    secret,
    encodeURIComponent(secret),
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64url'),
    Buffer.from(secret).toString('base64').replace(/=+$/, ''),
  ]);
  return [...forms].filter((v) => v.length >= 4);
}

const credentialHeaderSet = new Set<string>(CREDENTIAL_HEADERS);

export class Redactor {
  /** Every spelling of every secret, to its mask. */
  private readonly masks = new Map<string, string>();
  /** One alternation of all spellings, longest first: one pass over a text, however many secrets. */
  private readonly pattern: RegExp | undefined;
  /** The values it masks: the secrets and their near misses. */
  private readonly known: string[];

  /**
   * `nearMissSeed`: the run seed of the near-miss credentials (src/auth/near-miss.ts). They are
   * derived from the secrets and sent by the auth checks, so they are secrets too.
   */
  constructor(secrets: readonly string[] = [], nearMissSeed?: number) {
    this.known = [...new Set(withNearMisses(secrets, nearMissSeed))].filter(Boolean);
    for (const s of this.known) {
      for (const v of variantsOf(s)) if (!this.masks.has(v)) this.masks.set(v, maskSecret(s));
    }
    // Longest first, so a secret that contains another is replaced whole.
    const spellings = [...this.masks.keys()].sort((a, b) => b.length - a.length);
    this.pattern = spellings.length
      ? new RegExp(spellings.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g')
      : undefined;
  }

  /** A redactor that also knows these extra values (e.g. a generated unknown key). */
  with(extra: readonly string[]): Redactor {
    return new Redactor([...this.known, ...extra]);
  }

  text(s: string): string {
    return this.pattern ? s.replace(this.pattern, (m) => this.masks.get(m) ?? m) : s;
  }

  /** Redacts credential query parameters by name, and any known secret anywhere in the URL. */
  url(u: string): string {
    let out = this.text(u);
    for (const name of CREDENTIAL_QUERY_PARAMS) {
      out = out.replace(new RegExp(`([?&]${name}=)([^&#]*)`, 'gi'), (_m, head: string, value: string) =>
        value.endsWith(encodeURIComponent(REDACTED_SUFFIX)) || value.includes(REDACTED_SUFFIX)
          ? `${head}${value}`
          : `${head}${maskSecret(decodeURIComponentSafe(value))}`,
      );
    }
    return out;
  }

  headers(h: Record<string, string | string[] | undefined>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(h)) {
      if (v === undefined) continue;
      const value = Array.isArray(v) ? v.join(', ') : String(v);
      if (credentialHeaderSet.has(k.toLowerCase())) {
        const m = /^(Bearer\s+)(.*)$/i.exec(value);
        out[k] = m ? `${m[1]}${maskSecret(m[2]!)}` : maskSecret(value);
      } else {
        out[k] = this.text(value);
      }
    }
    return out;
  }

  /** Deep-redacts any JSON-like value (strings anywhere, credential-named keys). */
  value<T>(v: T): T {
    if (typeof v === 'string') return this.text(v) as T;
    if (Array.isArray(v)) return v.map((x) => this.value(x)) as T;
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const lower = k.toLowerCase();
        out[k] =
          typeof x === 'string' && (credentialHeaderSet.has(lower) || lower === 'apikey' || lower === 'token')
            ? maskSecret(x)
            : this.value(x);
      }
      return out as T;
    }
    return v;
  }
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
