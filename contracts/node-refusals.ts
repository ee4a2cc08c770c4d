// NAUTH-07 on one node path, whatever its transport (REST, WebSocket upgrade, gRPC metadata): no
// token, then the wrong tokens of src/auth/wrong-credentials.ts in every form the path was seen
// to accept with the right token. The transport only says how to send and what "data" means.
import type { FormId } from '../src/auth/forms.js';
import { AUTH_PROBE_FIELD, type AuthProbe } from '../src/auth/surface.js';
import { wrongCredentialCount, wrongCredentials } from '../src/auth/wrong-credentials.js';
import type { Evidence } from '../src/verdict.js';
import type { Checks } from './checks.js';
import { suiteEnv } from './env.js';

export const NO_TOKEN_CAUSE = 'no node token';
export const WRONG_TOKEN_CAUSE = 'a wrong node token';
export const OPEN_FORM_CAUSE = 'an auth form the description leaves open';

export interface NodeRow {
  /** Check id prefix, e.g. `node.blockRest`. */
  id: string;
  /** Row of the auth surface table. */
  row: string;
  label: string;
  /** Every wrong-token kind (one path per node kind), or one rotating kind. */
  full: boolean;
  /** Position among the node paths: moves the rotating kind along. */
  index: number;
  /**
   * A rate-limited node: only what a correct service refuses is sent (a refused request spends no
   * quota), so the probes that follow find the quota the contracts left.
   */
  refuseOnly?: boolean;
}

/** One attempt: the token values in a form (undefined: no token), and whether data came back. Throws CouldNotTest when it could not tell. */
export type NodeAttempt = (form: FormId | undefined, values: readonly string[] | undefined, purpose: string, cause: string) => Promise<{ data: boolean; what: string; evidence: Evidence }>;

/** At most how many requests refuseNode sends for these accepted forms (for the test's time-out). */
export function refusalCount(forms: readonly FormId[], full: boolean): number {
  return 1 + forms.reduce((n, f) => n + wrongCredentialCount(f, full), 0);
}

/**
 * Tries the right token in forms the description does not show on this path (observed, never
 * failed); each one that gets data joins `accepted`, so the wrong tokens are tried there too.
 */
export async function learnOpenForms(check: Checks, row: NodeRow, forms: readonly FormId[], token: string, attempt: NodeAttempt, accepted: FormId[]): Promise<void> {
  for (const form of forms) {
    const id = `${row.id}[${form}]`;
    await check.guard('NAUTH-07', id, async () => {
      const r = await attempt(form, [token], id, OPEN_FORM_CAUSE);
      if (r.data) accepted.push(form);
      const { expected: _expected, ...evidence } = r.evidence;
      const authProbe: AuthProbe = { row: row.row, form, probe: 'right', documented: false, data: r.data };
      check.add('NAUTH-07', id, 'observed', `${row.label}, the token as ${form} (a form not shown there): ${r.data ? 'accepted' : 'not accepted'}, ${r.what}`, { ...evidence, [AUTH_PROBE_FIELD]: authProbe });
    });
  }
}

export async function refuseNode(check: Checks, row: NodeRow, accepted: readonly FormId[], token: string, attempt: NodeAttempt): Promise<void> {
  const seed = suiteEnv().seed;
  const one = async (form: FormId | undefined, values: readonly string[] | undefined, kind: AuthProbe['probe'], label: string, expect: 'refuse' | 'observe', rotating = false) => {
    const id = form ? `${row.id}[${rotating ? 'rotating' : kind}:${form}]` : `${row.id}[no-token]`;
    await check.guard('NAUTH-07', id, async () => {
      const r = await attempt(form, values, id, kind === 'none' ? NO_TOKEN_CAUSE : WRONG_TOKEN_CAUSE);
      const what = `${row.label} with ${!form ? 'no token' : kind === 'empty' ? `an empty token as ${form}` : `the token (${label}) as ${form}`}`;
      const authProbe: AuthProbe = { row: row.row, form: form ?? 'none', probe: kind, data: r.data, expect };
      // A rotating kind's status may differ from the last run's kind: not drift (see WrongCredential).
      const evidence = { ...r.evidence, ...(rotating && { observation: { accepted: r.data } }), [AUTH_PROBE_FIELD]: authProbe };
      if (expect === 'observe') check.add('NAUTH-07', id, 'observed', `${what}: ${r.what}`, evidence);
      else check.verdict(!r.data, 'NAUTH-07', id, `${what}: ${r.what}`, `${what}: ${r.what}, with data`, evidence);
    });
  };
  await one(undefined, undefined, 'none', 'no token', 'refuse');
  for (const [i, form] of accepted.entries()) {
    for (const w of wrongCredentials(form, token, seed, { full: row.full, index: row.index * 3 + i })) {
      if (row.refuseOnly && w.expect !== 'refuse') continue;
      await one(form, w.values, w.kind, w.label, w.expect, w.rotating);
    }
  }
}
