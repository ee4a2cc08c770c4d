// The secrets canary's eyes: every form a credential can take in text (raw, URL-encoded,
// base64, base64url), searched in every file of a folder, inside the zip that Playwright's HTML
// report embeds as a data: URL, and inside any long base64 run (an attachment, a trace) once decoded.
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

export interface Hit {
  /** Where: a file path (relative), `<file>!<zip entry>`, `stdout`, ... with `(base64 run)` when decoded. */
  where: string;
  /** Which secret, by its index in the list given (never the value: a report of leaks must not leak). */
  secret: number;
  form: string;
  /** Offset of the hit in the searched text. */
  at: number;
}

/** Every spelling of a secret a leak could take. */
export function secretForms(secret: string): { form: string; text: string }[] {
  const b64 = Buffer.from(secret).toString('base64');
  const forms = [
    { form: 'raw', text: secret },
    { form: 'url-encoded', text: encodeURIComponent(secret) },
    {
      form: 'url-encoded (lower-case hex)',
      text: encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    },
    { form: 'form-encoded', text: new URLSearchParams({ x: secret }).toString().slice(2) },
    { form: 'json-escaped', text: JSON.stringify(secret).slice(1, -1) },
    { form: 'base64', text: b64 },
    { form: 'base64 unpadded', text: b64.replace(/=+$/, '') },
    { form: 'base64url', text: Buffer.from(secret).toString('base64url') },
  ];
  const seen = new Set<string>();
  return forms.filter((f) => !seen.has(f.text) && seen.add(f.text));
}

/**
 * Parts of a secret whose presence means part of it got out: its first 5 characters (a redacted
 * form keeps at most 4) and every window of 8 characters (a tail or a middle piece). Windows are
 * not shorter so that ordinary report text cannot match a canary by chance.
 */
export function secretPieces(secret: string): { piece: string; what: string }[] {
  const out = new Map<string, string>([
    [secret.slice(0, 5), 'its first 5 characters (more than a redacted form keeps)'],
  ]);
  for (let i = 0; i + 8 <= secret.length; i++)
    if (!out.has(secret.slice(i, i + 8))) out.set(secret.slice(i, i + 8), `8 characters from offset ${i}`);
  return [...out].map(([piece, what]) => ({ piece, what }));
}

interface Needle {
  secret: number;
  text: string;
  /** Set for a form; a piece's words otherwise. */
  form?: string;
  piece?: string;
}

/** Hash of `len` characters of `s` from `at` (the same for a needle's start and the text there). */
function hashAt(s: string, at: number, len: number): number {
  let h = 0;
  for (let k = 0; k < len; k++) h = (Math.imul(h, 31) + s.charCodeAt(at + k)) | 0;
  return h;
}

/**
 * Every secret's forms and pieces, and an index of them by the hash of their first characters,
 * worked out once per list: one pass over a text then finds where each needle first occurs, where
 * an indexOf per needle read a report of megabytes some hundred times.
 */
const needlesOf = (() => {
  const cache = new Map<string, { needles: Needle[]; keyLen: number; byHash: Map<number, number[]> }>();
  return (secrets: readonly string[]) => {
    const key = JSON.stringify(secrets);
    const hit = cache.get(key);
    if (hit) return hit;
    const needles: Needle[] = secrets.flatMap((secret, i) => [
      ...secretForms(secret).map((f) => ({ secret: i, text: f.text, form: f.form })),
      ...secretPieces(secret).map((p) => ({ secret: i, text: p.piece, piece: p.what })),
    ]);
    const keyLen = Math.max(1, Math.min(...needles.map((n) => n.text.length)));
    const byHash = new Map<number, number[]>();
    needles.forEach((n, id) => {
      const h = hashAt(n.text, 0, keyLen);
      byHash.set(h, [...(byHash.get(h) ?? []), id]);
    });
    const made = { needles, keyLen, byHash };
    cache.set(key, made);
    return made;
  };
})();

export function scanText(text: string, secrets: readonly string[], where: string): Hit[] {
  const { needles, keyLen, byHash } = needlesOf(secrets);
  const first = new Array<number | undefined>(needles.length);
  for (let at = 0; at + keyLen <= text.length; at++) {
    const ids = byHash.get(hashAt(text, at, keyLen));
    if (!ids) continue;
    for (const id of ids) if (first[id] === undefined && text.startsWith(needles[id]!.text, at)) first[id] = at;
  }
  const hits: Hit[] = [];
  secrets.forEach((_, i) => {
    needles.forEach((n, id) => {
      if (n.secret === i && n.form !== undefined && first[id] !== undefined)
        hits.push({ where, secret: i, form: n.form, at: first[id]! });
    });
    // The first piece in the list that occurs is enough to say part of it got out.
    const piece = needles.findIndex((n, id) => n.secret === i && n.piece !== undefined && first[id] !== undefined);
    if (piece >= 0) hits.push({ where, secret: i, form: `part of it: ${needles[piece]!.piece}`, at: first[piece]! });
  });
  return hits;
}

/** The entries of a zip archive (stored or deflated), read through its central directory. */
export function unzip(buf: Buffer): { name: string; data: Buffer }[] {
  // End of central directory: signature 0x06054b50, within the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65_557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip archive (no end of central directory)');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out: { name: string; data: Buffer }[] = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`zip: bad central directory entry ${n}`);
    const method = buf.readUInt16LE(p + 10);
    const compressed = buf.readUInt32LE(p + 20);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    p += 46 + nameLen + extraLen + commentLen;
    if (buf.readUInt32LE(local) !== 0x04034b50) throw new Error(`zip: bad local header for ${name}`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(start, start + compressed);
    if (method === 0) out.push({ name, data: Buffer.from(raw) });
    else if (method === 8) out.push({ name, data: inflateRawSync(raw) });
    else throw new Error(`zip: ${name} uses compression method ${method}`);
  }
  return out;
}

const EMBEDDED_ZIP = /data:application\/zip;base64,([A-Za-z0-9+/=]+)/g;
/** Long runs of base64 (either alphabet): attachments, traces, encoded bodies. */
const BASE64_RUN = /[A-Za-z0-9+/\-_]{24,}={0,2}/g;

function decodedRuns(text: string): { at: number; text: string }[] {
  const out: { at: number; text: string }[] = [];
  for (const m of text.matchAll(BASE64_RUN)) {
    const run = m[0];
    const decoded = Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    // Only runs that decode to mostly printable text can carry a readable secret.
    const s = decoded.toString('latin1');
    if (s.length >= 8 && /^[\x09\x0a\x0d\x20-\x7e\x80-\xff]*$/.test(s)) out.push({ at: m.index, text: s });
  }
  return out;
}

export interface ScanReport {
  hits: Hit[];
  /** What was looked at: files, zip entries, decoded base64 runs (to show the scan is not empty). */
  files: string[];
  zipEntries: string[];
  base64Runs: number;
}

export function scanBlob(text: string, where: string, secrets: readonly string[], report: ScanReport): void {
  // An embedded zip's base64 is compressed bytes, searched entry by entry below. Searched as text,
  // the hundreds of kB of it in Playwright's report matched a secret's 5-character prefix by chance
  // (a 64^-5 chance per place, so about once in a few hundred reports per secret).
  const outsideZips = text.replace(EMBEDDED_ZIP, (m) => ' '.repeat(m.length));
  report.hits.push(...scanText(outsideZips, secrets, where));
  for (const m of text.matchAll(EMBEDDED_ZIP)) {
    for (const entry of unzip(Buffer.from(m[1]!, 'base64'))) {
      const name = `${where}!${entry.name}`;
      report.zipEntries.push(name);
      scanBlob(entry.data.toString('utf8'), name, secrets, report);
    }
  }
  for (const run of decodedRuns(outsideZips)) {
    report.base64Runs++;
    for (const h of scanText(run.text, secrets, `${where} (base64 run at ${run.at})`)) report.hits.push(h);
  }
}

/** Scans every file under dir (recursively), binary files as latin1 so any byte sequence is seen. */
export function scanTree(
  dir: string,
  secrets: readonly string[],
  report: ScanReport = { hits: [], files: [], zipEntries: [], base64Runs: 0 },
): ScanReport {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = lstatSync(path);
    if (st.isSymbolicLink()) continue; // links the caller placed (compile caches), not output
    if (st.isDirectory()) {
      scanTree(path, secrets, report);
      continue;
    }
    const buf = readFileSync(path);
    const where = relative(dir, path) || name;
    report.files.push(path);
    if (/\.zip$/i.test(name)) {
      for (const entry of unzip(buf)) {
        report.zipEntries.push(`${where}!${entry.name}`);
        scanBlob(entry.data.toString('utf8'), `${path}!${entry.name}`, secrets, report);
      }
    } else {
      scanBlob(buf.toString('utf8'), path, secrets, report);
      // A non-UTF-8 file: look at its bytes too.
      if (buf.includes(0)) scanBlob(buf.toString('latin1'), `${path} (bytes)`, secrets, report);
    }
  }
  return report;
}

export function emptyReport(): ScanReport {
  return { hits: [], files: [], zipEntries: [], base64Runs: 0 };
}

/** A hit described without the secret's value. */
export function describeHit(h: Hit, names: readonly string[]): string {
  return `${names[h.secret] ?? `secret #${h.secret}`} (${h.form}) in ${h.where} at offset ${h.at}`;
}

/** A little-endian record: [offset, width in bytes, value] fields in a zeroed buffer. */
function record(size: number, fields: [number, 2 | 4, number][]): Buffer {
  const b = Buffer.alloc(size);
  for (const [at, width, v] of fields) width === 2 ? b.writeUInt16LE(v, at) : b.writeUInt32LE(v, at);
  return b;
}

/** A zip archive of deflated entries (for the scanner's own test: a planted secret must be found). */
export function zipOf(entries: { name: string; data: Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const body = deflateRawSync(e.data);
    // version 20, method 8 (deflate), sizes, name length; the central entry adds the local offset.
    const local = record(30, [
      [0, 4, 0x04034b50],
      [4, 2, 20],
      [8, 2, 8],
      [18, 4, body.length],
      [22, 4, e.data.length],
      [26, 2, name.length],
    ]);
    const central = record(46, [
      [0, 4, 0x02014b50],
      [6, 2, 20],
      [10, 2, 8],
      [20, 4, body.length],
      [24, 4, e.data.length],
      [28, 2, name.length],
      [42, 4, offset],
    ]);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const dir = Buffer.concat(centrals);
  const end = record(22, [
    [0, 4, 0x06054b50],
    [8, 2, entries.length],
    [10, 2, entries.length],
    [12, 4, dir.length],
    [16, 4, offset],
  ]);
  return Buffer.concat([...locals, dir, end]);
}
