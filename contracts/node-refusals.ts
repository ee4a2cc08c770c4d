// NAUTH-07 on one node path, whatever its transport (REST, WebSocket upgrade, gRPC metadata): no
// token, then the wrong tokens of src/auth/wrong-credentials.ts in every form the path was seen
// to accept with the right token. The transport only says how to send and what "data" means.
import type { FormId } from '../src/auth/forms.js';
import { AUTH_PROBE_FIELD, type AuthProbe } from '../src/auth/surface.js';
import { wrongCredentialCount, wrongCredentials } from '../src/auth/wrong-credentials.js';
import type { Evidence } from '../src/verdict.js';
import type { Checks } from './checks.js';
import { suiteEnv } from './env.js';
import { AUTH_CONCURRENCY, settleAll, taskQueue, valueOf, type Settled } from './in-flight.js';

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
  /** The run seed (which near misses); the suite's when absent (the contract stage's own work passes it). */
  seed?: number;
}

/** One attempt: the token values in a form (undefined: no token), and whether data came back. Throws CouldNotTest when it could not tell. */
export type NodeAttempt = (
  form: FormId | undefined,
  values: readonly string[] | undefined,
  purpose: string,
  cause: string,
) => Promise<{ data: boolean; what: string; evidence: Evidence }>;

/** At most how many requests refuseNode sends for these accepted forms (for the test's time-out). */
export function refusalCount(forms: readonly FormId[], full: boolean): number {
  return 1 + forms.reduce((n, f) => n + wrongCredentialCount(f, full), 0);
}

/**
 * Tries the right token in forms the description does not show on this path (observed, never
 * failed); each one that gets data joins `accepted`, so the wrong tokens are tried there too.
 */
export async function learnOpenForms(
  check: Checks,
  row: NodeRow,
  forms: readonly FormId[],
  token: string,
  attempt: NodeAttempt,
  accepted: FormId[],
): Promise<void> {
  const idOf = (form: FormId) => `${row.id}[${form}]`;
  const answers = await settleAll(
    forms.map((form) => () => attempt(form, [token], idOf(form), OPEN_FORM_CAUSE)),
    row.refuseOnly ? 1 : AUTH_CONCURRENCY,
  );
  for (const [i, form] of forms.entries()) {
    await check.guard('NAUTH-07', idOf(form), async () => {
      const r = valueOf(answers[i]!);
      if (r.data) accepted.push(form);
      const { expected: _expected, ...evidence } = r.evidence;
      const authProbe: AuthProbe = { row: row.row, form, probe: 'right', documented: false, data: r.data };
      check.add(
        'NAUTH-07',
        idOf(form),
        'observed',
        `${row.label}, the token as ${form} (a form not shown there): ${r.data ? 'accepted' : 'not accepted'}, ${r.what}`,
        { ...evidence, [AUTH_PROBE_FIELD]: authProbe },
      );
    });
  }
}

export interface NodeProbe {
  form?: FormId;
  values?: readonly string[];
  kind: AuthProbe['probe'];
  label: string;
  expect: 'refuse' | 'observe';
  rotating?: boolean;
}

/**
 * No token, then every wrong token planned for the accepted forms, a few in flight at once (one at
 * a time on a rate-limited node), judged in plan order.
 */
export async function refuseNode(
  check: Checks,
  row: NodeRow,
  accepted: readonly FormId[],
  token: string,
  attempt: NodeAttempt,
): Promise<void> {
  await judgeRefusals(
    check,
    row,
    await sendRefusals(
      row,
      token,
      attempt,
      accepted.map((f) => Promise.resolve(f)),
    ),
  );
}

/** A refusal probe and what its attempt gave (judged by judgeRefusals). */
export interface SentRefusal {
  probe: NodeProbe;
  answer: Settled<Awaited<ReturnType<NodeAttempt>>>;
}

const idOf = (row: NodeRow, p: NodeProbe) =>
  p.form ? `${row.id}[${p.rotating ? 'rotating' : p.kind}:${p.form}]` : `${row.id}[no-token]`;

/**
 * Sends refuseNode's requests as the right token's answers come in: no token at once, and each
 * form's wrong tokens as soon as that form is known to be accepted (`forms`: each settles to its form
 * when the right token got data there, to undefined otherwise), so a form still waiting for its
 * answer (a rate-limited node's quota) holds up only its own. Answers come back in plan order: no
 * token, then the forms in the order given.
 */
export async function sendRefusals(
  row: NodeRow,
  token: string,
  attempt: NodeAttempt,
  forms: readonly Promise<FormId | undefined>[],
): Promise<SentRefusal[]> {
  const seed = row.seed ?? suiteEnv().seed;
  const run = taskQueue(row.refuseOnly ? 1 : AUTH_CONCURRENCY);
  const send = (probe: NodeProbe) =>
    run(() =>
      attempt(probe.form, probe.values, idOf(row, probe), probe.kind === 'none' ? NO_TOKEN_CAUSE : WRONG_TOKEN_CAUSE),
    ).then((answer) => ({ probe, answer }));
  const noToken = send({ kind: 'none', label: 'no token', expect: 'refuse' });
  const perForm = forms.map(async (pending, k) => {
    const form = await pending;
    if (!form) return [];
    // A rotating kind is picked by the form's place among the accepted ones (every kind on a full row).
    const place = row.full ? k : (await Promise.all(forms.slice(0, k))).filter(Boolean).length;
    return wrongCredentials(form, token, seed, { full: row.full, index: row.index * 3 + place })
      .filter((w) => !row.refuseOnly || w.expect === 'refuse')
      .map((w) =>
        send({ form, values: w.values, kind: w.kind, label: w.label, expect: w.expect, rotating: w.rotating }),
      );
  });
  return Promise.all([noToken, ...(await Promise.all(perForm)).flat()]);
}

/** Judges sendRefusals' answers in plan order: a refusal passes, data fails (observed where the description is open). */
export async function judgeRefusals(check: Checks, row: NodeRow, sent: readonly SentRefusal[]): Promise<void> {
  for (const { probe: p, answer } of sent) {
    const id = idOf(row, p);
    await check.guard('NAUTH-07', id, async () => {
      const r = valueOf(answer);
      const what = `${row.label} with ${!p.form ? 'no token' : p.kind === 'empty' ? `an empty token as ${p.form}` : `the token (${p.label}) as ${p.form}`}`;
      const authProbe: AuthProbe = {
        row: row.row,
        form: p.form ?? 'none',
        probe: p.kind,
        data: r.data,
        expect: p.expect,
      };
      // A rotating kind's status may differ from the last run's kind: not drift (see WrongCredential).
      const evidence = {
        ...r.evidence,
        ...(p.rotating && { observation: { accepted: r.data } }),
        [AUTH_PROBE_FIELD]: authProbe,
      };
      if (p.expect === 'observe') check.add('NAUTH-07', id, 'observed', `${what}: ${r.what}`, evidence);
      else check.verdict(!r.data, 'NAUTH-07', id, `${what}: ${r.what}`, `${what}: ${r.what}, with data`, evidence);
    });
  }
}
