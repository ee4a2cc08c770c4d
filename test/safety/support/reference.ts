// The reference service started inside the test process, so a test can read what the servers
// themselves saw (request counts, arrival times) while the CLI runs against it as a child process.
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReference, type ReferenceTarget as TargetFile, type RunningReference } from '../../../reference/start.js';
import type { ReferenceCredentials, ReferenceOptions } from '../../../reference/options.js';

/** Options that keep the probes short but complete: T = 200 ms, and room for a burst above the cap. */
export const QUICK_PROBES: Partial<ReferenceOptions> = { hourlyLimit: 18_000, burst: 40 };

export interface Arrival {
  server: string;
  /** performance.now() of the test process when the server counted the request. */
  at: number;
}

export interface WatchedReference extends RunningReference {
  arrivals: Arrival[];
  /** Writes the target file (optionally changed) into a fresh folder; returns its path. */
  writeTarget(change?: (t: TargetFile) => void): string;
  /** A scratch folder removed on close. */
  dir: string;
}

export async function startWatchedReference(partial: Partial<ReferenceOptions> = {}): Promise<WatchedReference> {
  const ref = await startReference(partial);
  const arrivals: Arrival[] = [];
  ref.options.counters.onHit((server) => arrivals.push({ server, at: performance.now() }));
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-safety-'));
  return {
    ...ref,
    arrivals,
    dir,
    writeTarget(change) {
      const t = structuredClone(ref.target);
      change?.(t);
      const path = join(dir, `target-${arrivals.length}-${randomInt(1e9)}.json`);
      writeFileSync(path, JSON.stringify(t, null, 2));
      return path;
    },
    close: async () => {
      await ref.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const CANARY_ALPHABET = 'GHJKLMNPQRSTVWXYZ';

/**
 * Recognisable credentials, one per kind, fresh each run: `CANARY-<kind>-` and 14 letters that
 * are not hex digits (so no hash or id in a report matches a piece by chance). The legacy key also
 * carries `+`, `/` and `=`, characters a real base64 key has, so its URL-encoded form differs.
 */
export function canaryCredentials(): ReferenceCredentials {
  const tail = () => Array.from({ length: 14 }, () => CANARY_ALPHABET[randomInt(CANARY_ALPHABET.length)]).join('');
  return {
    apiKey: `CANARY-new-${tail()}`,
    legacyApiKey: `CANARY-legacy+${tail().slice(0, 7)}/${tail().slice(0, 7)}=`,
    blockRestToken: `CANARY-nodeA-${tail()}`,
    chainBToken: `CANARY-nodeB-${tail()}`,
    horizonToken: `CANARY-nodeC-${tail()}`,
  };
}
