// The auth surface: which credential forms each endpoint and node path accepts with the right
// credential, and what it did with the wrong ones. Each request of the auth checks leaves one
// AuthProbe in the evidence of one check (`evidence.authProbe`); the report's table and the
// request count are read back from results.json, nothing is kept on the side.
import type { CheckResult } from '../verdict.js';
import type { FormId } from './forms.js';
import type { WrongKind } from './wrong-credentials.js';

export const AUTH_PROBE_FIELD = 'authProbe';

/** `none`: the request carried no credential at all. */
export type SurfaceForm = FormId | 'none';

export interface AuthProbe {
  /** Row of the table: an API endpoint on one base URL, or a node path. */
  row: string;
  form: SurfaceForm;
  /** `right`: the real credential (which forms are accepted); `none`: no credential; else the wrong kind. */
  probe: 'right' | 'none' | WrongKind;
  /** Whether the answer carried data (2xx with the resource, an upgrade that talked, gRPC OK). */
  data: boolean;
  /** For `right`: whether the description lists the form there. */
  documented?: boolean;
  /** For wrong credentials: `refuse` (data breaks the rule) or `observe` (recorded only). */
  expect?: 'refuse' | 'observe';
}

export function authProbeOf(c: Pick<CheckResult, 'evidence'>): AuthProbe | undefined {
  const p = c.evidence?.[AUTH_PROBE_FIELD] as AuthProbe | undefined;
  return p && typeof p === 'object' && typeof p.row === 'string' && typeof p.form === 'string' ? p : undefined;
}

/** Requests the auth checks sent: one probe each. */
export function authRequestCount(checks: readonly Pick<CheckResult, 'evidence'>[]): number {
  return checks.filter((c) => authProbeOf(c) !== undefined).length;
}
