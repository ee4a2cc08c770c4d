// Why a client could not talk to the target at all: connection refused, a host name that does not
// resolve, no connection in time, a TLS handshake that failed. One classifier serves every client
// (undici, ws, grpc-js, the probe engine), one line format per cause, and the same table parses the
// line back out of a check's message, so a run with 60 checks that could not reach one host prints
// one line first, not 60. Causes are the client's side of the wire: never an answer of the target.

export type CauseKind =
  | 'refused'
  | 'dns'
  | 'unreachable'
  | 'connect-timeout'
  | 'tls-untrusted'
  | 'tls-altname'
  | 'tls-expired'
  | 'tls-handshake';

export interface ConnectionCause {
  kind: CauseKind;
  /** host:port the client tried. */
  where: string;
  /** The one line a person reads, e.g. "cannot reach 127.0.0.1:1 (connection refused)". */
  line: string;
}

interface CauseDef {
  kind: CauseKind;
  /** Error codes of node (net, dns, tls), undici and OpenSSL that mean this cause. */
  codes: readonly string[];
  /** The same, recognised in a message that lost its code (ws, grpc-js wrap the error text). */
  text: RegExp;
  render(where: string, detail: string): string;
  /** Matches a rendered line inside a longer message; group 1 is `where`. */
  parse: RegExp;
}

const TRUST_HINT = 'give the CA with --ca or NODE_EXTRA_CA_CERTS';

// Order matters: the first definition whose code or text matches wins (TLS before the generic ones,
// because a TLS message may also mention the socket).
const CAUSES: readonly CauseDef[] = [
  {
    kind: 'tls-altname',
    codes: ['ERR_TLS_CERT_ALTNAME_INVALID'],
    text: /altnames|does not match certificate/i,
    render: (w, d) => `TLS: certificate of ${w} does not name that host (${d})`,
    parse: /TLS: certificate of (\S+) does not name that host \([^()]*\)/,
  },
  {
    kind: 'tls-expired',
    codes: ['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID'],
    text: /certificate has expired|certificate is not yet valid/i,
    render: (w, d) => `TLS: certificate of ${w} is out of its validity period (${d})`,
    parse: /TLS: certificate of (\S+) is out of its validity period \([^()]*\)/,
  },
  {
    kind: 'tls-untrusted',
    codes: [
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'SELF_SIGNED_CERT_IN_CHAIN',
      'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
      'UNABLE_TO_GET_ISSUER_CERT',
      'CERT_UNTRUSTED',
      'CERT_SIGNATURE_FAILURE',
    ],
    text: /unable to verify the first certificate|self[- ]signed certificate|unable to get (?:local )?issuer certificate|certificate signature failure/i,
    render: (w, d) => `TLS: certificate of ${w} not trusted (${d}); ${TRUST_HINT}`,
    parse: /TLS: certificate of (\S+) not trusted \([^()]*\); give the CA with --ca or NODE_EXTRA_CA_CERTS/,
  },
  {
    kind: 'tls-handshake',
    codes: [
      'EPROTO',
      'ERR_SSL_WRONG_VERSION_NUMBER',
      'ERR_SSL_PACKET_LENGTH_TOO_LONG',
      'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
      'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE',
      'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
      'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
    ],
    text: new RegExp(
      [
        'wrong version number',
        'packet length too long',
        'SSL routines',
        'alert (?:certificate required|handshake failure|bad certificate|unknown ca)',
        'before secure TLS connection was established',
      ].join('|'),
      'i',
    ),
    render: (w, d) => `TLS: handshake with ${w} failed (${d})`,
    parse: /TLS: handshake with (\S+) failed \([^()]*\)/,
  },
  {
    kind: 'refused',
    codes: ['ECONNREFUSED'],
    text: /ECONNREFUSED/,
    render: (w) => `cannot reach ${w} (connection refused)`,
    parse: /cannot reach (\S+) \(connection refused\)/,
  },
  {
    kind: 'dns',
    codes: ['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA'],
    text: /getaddrinfo|ENOTFOUND|EAI_AGAIN|Name resolution failed|DNS resolution failed/i,
    render: (w, d) => `cannot reach ${w} (host name does not resolve: ${d})`,
    parse: /cannot reach (\S+) \(host name does not resolve: [^()]*\)/,
  },
  {
    kind: 'unreachable',
    codes: ['EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'],
    text: /EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL/,
    render: (w, d) => `cannot reach ${w} (no route: ${d})`,
    parse: /cannot reach (\S+) \(no route: [^()]*\)/,
  },
  {
    kind: 'connect-timeout',
    codes: ['UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT'],
    text: /Connect Timeout Error|connect ETIMEDOUT/i,
    render: (w) => `cannot reach ${w} (no connection within the timeout)`,
    parse: /cannot reach (\S+) \(no connection within the timeout\)/,
  },
];

/** The text of an error and of its causes (undici and fetch nest the socket's error). */
function codesAndText(e: unknown): { codes: string[]; text: string } {
  const codes: string[] = [];
  const texts: string[] = [];
  let cur: unknown = e;
  for (let depth = 0; cur && depth < 4; depth++) {
    if (typeof cur === 'string') {
      texts.push(cur);
      break;
    }
    const err = cur as { code?: unknown; message?: unknown; details?: unknown; cause?: unknown };
    if (typeof err.code === 'string') codes.push(err.code);
    if (typeof err.message === 'string') texts.push(err.message);
    if (typeof err.details === 'string') texts.push(err.details);
    cur = err.cause;
  }
  return { codes, text: texts.join(' | ') };
}

/** The reason in words, one line, without the parentheses the line format uses as its frame. */
function detailOf(kind: CauseKind, code: string | undefined, text: string): string {
  const first =
    text.split(' | ').find((t) => t.trim() && !/^(fetch failed|No connection established\.?)$/.test(t.trim())) ?? text;
  // grpc-js appends "(<ISO time>)": dropped, or every call would be its own cause. Node 24 adds a
  // hint about --use-system-ca to certificate errors: our hint (--ca) replaces it.
  let d = first
    .replace(/^.*Last error: (?:Error: )?/, '')
    .replace(/\s*\(\d{4}-\d\d-\d\dT[^()]*\)/g, '')
    .replace(/\.?\s*Resolution note:.*$/, '')
    .replace(/;\s*if the root CA is installed locally[^;)]*/i, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (kind === 'dns') d = code ?? /(ENOTFOUND|EAI_[A-Z]+)/.exec(text)?.[1] ?? d;
  if (kind === 'tls-handshake' && /wrong version number|packet length too long/i.test(text))
    d = 'the port does not speak TLS (wrong version number)';
  return d.replace(/[()]/g, '').replace(/\s+/g, ' ').slice(0, 160).trim() || (code ?? 'unknown');
}

/** host:port of a URL or of a gRPC address, with the scheme's default port filled in. */
export function whereOf(urlOrAddress: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(urlOrAddress)) return urlOrAddress;
  try {
    const u = new URL(urlOrAddress);
    const port =
      u.port ||
      ({ 'https:': '443', 'wss:': '443', 'http:': '80', 'ws:': '80' } as Record<string, string>)[u.protocol] ||
      '';
    return `${u.hostname.includes(':') ? `[${u.hostname.replace(/^\[|\]$/g, '')}]` : u.hostname}:${port}`;
  } catch {
    return urlOrAddress;
  }
}

/** Classifies a client-side failure; undefined when it is not a connection cause (a slow answer, a reset mid-body). */
export function classify(e: unknown, where: string): ConnectionCause | undefined {
  const { codes, text } = codesAndText(e);
  for (const def of CAUSES) {
    const code = codes.find((c) => def.codes.includes(c));
    if (code || def.text.test(text)) {
      const line = def.render(where, detailOf(def.kind, code, text));
      return { kind: def.kind, where, line };
    }
  }
  return undefined;
}

/** Every cause line inside a longer message (a check's "could not check: ..."), in order. */
export function parseCauses(text: string | undefined): ConnectionCause[] {
  if (!text) return [];
  const found: { at: number; cause: ConnectionCause }[] = [];
  for (const def of CAUSES) {
    for (const m of text.matchAll(new RegExp(def.parse.source, 'g')))
      found.push({ at: m.index ?? 0, cause: { kind: def.kind, where: m[1]!, line: m[0] } });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.cause);
}

/** The first cause line inside a longer message, if there is one. */
export function parseCause(text: string | undefined): ConnectionCause | undefined {
  return parseCauses(text)[0];
}

export function isTlsCause(c: ConnectionCause): boolean {
  return c.kind.startsWith('tls-');
}

// ---- Known-unreachable addresses: once one request met a cause, the others to the same address
// fail at once with the same line instead of each waiting for DNS, a timeout or a handshake. Kept
// briefly (TTL), so a long-lived process (a test runner) that later opens that port is not misled.

const KNOWN_TTL_MS = 15_000;
const known = new Map<string, { cause: ConnectionCause; at: number; ttl: number }>();

export function noteCause(cause: ConnectionCause, ttl = KNOWN_TTL_MS): void {
  known.set(cause.where, { cause, at: Date.now(), ttl });
}

export function knownCause(where: string): ConnectionCause | undefined {
  const k = known.get(where);
  if (!k) return undefined;
  if (Date.now() - k.at > k.ttl) {
    known.delete(where);
    return undefined;
  }
  return k.cause;
}

/** Classify, remember, and return: the one call a client makes in its error path. */
export function causeOfFailure(e: unknown, where: string): ConnectionCause | undefined {
  const c = classify(e, where);
  if (c) noteCause(c);
  return c;
}

export function forgetCauses(): void {
  known.clear();
}

// ---- Grouping the checks of a run by cause.

export interface CauseGroup {
  line: string;
  kind: CauseKind;
  where: string;
  /** Checks that could not run because of it. */
  checks: number;
  rules: string[];
}

interface CheckLike {
  rule: string;
  verdict: string;
  message: string;
  evidence?: { cause?: unknown };
}

/** The error checks of a run grouped by connection cause, largest group first. */
export function groupCauses(checks: readonly CheckLike[]): CauseGroup[] {
  const groups = new Map<string, CauseGroup>();
  for (const c of checks) {
    if (c.verdict !== 'error') continue;
    const causes = parseCauses(c.message);
    const fromEvidence = typeof c.evidence?.cause === 'string' ? parseCauses(c.evidence.cause) : [];
    for (const cause of new Map([...fromEvidence, ...causes].map((x) => [x.line, x])).values()) {
      const g = groups.get(cause.line) ?? {
        line: cause.line,
        kind: cause.kind,
        where: cause.where,
        checks: 0,
        rules: [],
      };
      g.checks++;
      if (!g.rules.includes(c.rule)) g.rules.push(c.rule);
      groups.set(cause.line, g);
    }
  }
  return [...groups.values()].sort((a, b) => b.checks - a.checks || a.line.localeCompare(b.line));
}

/** "cannot reach 127.0.0.1:1 (connection refused): 62 checks could not run" */
export function groupLine(g: CauseGroup): string {
  return `${g.line}: ${g.checks} check${g.checks === 1 ? '' : 's'} could not run`;
}

/** Whether a check's error is covered by a group (the terminal lists it there, not again). */
export function coveredByCause(c: CheckLike): boolean {
  return (
    c.verdict === 'error' &&
    (parseCause(typeof c.evidence?.cause === 'string' ? c.evidence.cause : undefined) ?? parseCause(c.message)) !==
      undefined
  );
}
