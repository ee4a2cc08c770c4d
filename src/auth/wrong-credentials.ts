// The wrong credentials the auth checks send in one accepted form: the near misses of the real
// value (src/auth/near-miss.ts), the empty value, and, in query forms, the parameter twice. The
// budget is data too: every kind on one endpoint per family and node kind (`full`); elsewhere the
// empty value (no credential, which every endpoint must refuse) and one near miss, rotating over
// endpoints and forms from the run seed.
import { AUTH_FORMS, type FormId } from './forms.js';
import {
  NEAR_MISS_EXPECT,
  NEAR_MISS_KINDS,
  NEAR_MISS_LABEL,
  nearMisses,
  rotatingKind,
  type NearMissKind,
} from './near-miss.js';

export type WrongKind = NearMissKind | 'empty' | 'dup-wrong-first' | 'dup-right-first';

/** Each kind of wrong credential in plain words, for the report and the checks' messages. */
export const WRONG_KIND_LABEL: Record<WrongKind, string> = {
  ...NEAR_MISS_LABEL,
  empty: 'an empty value',
  'dup-wrong-first': 'twice: a wrong value first, then the right one',
  'dup-right-first': 'twice: the right value first, then a wrong one',
};

export interface WrongCredential {
  kind: WrongKind;
  /** refuse: data is a fail. observe: the description leaves it open; the answer is recorded. */
  expect: 'refuse' | 'observe';
  /** The values sent in the form, in order: a duplicated query parameter carries two. */
  values: string[];
  label: string;
  /**
   * The one kind of a rotating probe: its check id and observation leave the kind out, so a
   * baseline sees the same check from run to run while the kind moves with the seed.
   */
  rotating?: boolean;
}

/** The kinds one rotating probe draws from: near misses that must be refused (one rule, AUTH-08 or NAUTH-07). */
export const ROTATION: readonly WrongKind[] = NEAR_MISS_KINDS.filter((k) => NEAR_MISS_EXPECT[k] === 'refuse');

export interface WrongCredentialPlan {
  /** Every kind (the one endpoint of its family or node kind), or one rotating kind. */
  full: boolean;
  /** Position of this (endpoint, form) among the rotating ones: picks the kind with the seed. */
  index: number;
  /** The other key generation's key, where there is one. */
  other?: string;
}

export function wrongCredentials(
  form: FormId,
  real: string,
  seed: number,
  plan: WrongCredentialPlan,
): WrongCredential[] {
  // Whitespace around a header value is not part of it (RFC 9110 5.5): only a query carries it.
  const query = AUTH_FORMS[form].transport === 'query';
  const misses = nearMisses(real, seed, plan.other).filter((m) => query || m.kind !== 'whitespace');
  const wrong = misses.find((m) => m.kind === 'last-changed')?.value;
  const all: WrongCredential[] = [
    ...misses.map((m): WrongCredential => ({
      kind: m.kind,
      expect: NEAR_MISS_EXPECT[m.kind],
      values: [m.value],
      label: NEAR_MISS_LABEL[m.kind],
    })),
    { kind: 'empty', expect: 'refuse', values: [''], label: WRONG_KIND_LABEL.empty },
  ];
  if (query && wrong) {
    // Which of two values wins is the target's choice, and the description is silent on it: a
    // service where the last value wins (a common framework default) serves the wrong-first form
    // with the real key in the request, which is no unknown key getting data. Both are observed.
    all.push({
      kind: 'dup-wrong-first',
      expect: 'observe',
      values: [wrong, real],
      label: WRONG_KIND_LABEL['dup-wrong-first'],
    });
    all.push({
      kind: 'dup-right-first',
      expect: 'observe',
      values: [real, wrong],
      label: WRONG_KIND_LABEL['dup-right-first'],
    });
  }
  if (plan.full) return all;
  const kind = rotatingKind(
    ROTATION.filter((k) => all.some((w) => w.kind === k)),
    seed,
    plan.index,
  );
  return all
    .filter((w) => w.kind === 'empty' || w.kind === kind)
    .map((w) => (w.kind === kind ? { ...w, rotating: true } : w));
}

/** The check id part naming a wrong credential: its kind, or `rotating` (see WrongCredential). */
export function wrongCredentialSlot(w: WrongCredential): string {
  return w.rotating ? 'rotating' : w.kind;
}

/** How many requests the wrong credentials of one form cost at most (for test time-outs). */
export function wrongCredentialCount(form: FormId, full: boolean): number {
  return full ? 9 + 1 + (AUTH_FORMS[form].transport === 'query' ? 2 : 0) : 2;
}
