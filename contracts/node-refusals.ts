// NAUTH-07 on one node path, whatever its transport (REST, WebSocket upgrade, gRPC metadata): no
// token, then the wrong tokens of src/auth/wrong-credentials.ts in every form the path was seen
// to accept with the right token. Sending keeps each attempt's raw reply (or why it could not be
// made); judging reads it through the transport's facts (data or not, the words, the evidence).
import type { FormId } from '../src/auth/forms.js';
import { AUTH_PROBE_FIELD, type AuthProbe } from '../src/auth/surface.js';
import { wrongCredentials } from '../src/auth/wrong-credentials.js';
import type { Evidence } from '../src/verdict.js';
import { ev, lostOf, type Judgement, type Lost } from './checks.js';
import { AUTH_CONCURRENCY, settleAll, taskQueue, type Settled } from './in-flight.js';

export const NO_TOKEN_CAUSE = 'no node token';
export const WRONG_TOKEN_CAUSE = 'a wrong node token';
export const OPEN_FORM_CAUSE = 'an auth form the description leaves open';

/** What one request got: its reply, or why it could not be made. */
export type Outcome<R> = { reply: R } | { lost: Lost };

/** A settled request as an outcome: a could-not-test failure is kept; any other throw is thrown again (a defect). */
export function outcomeOf<R>(s: Settled<R>): Outcome<R> {
  if (s.ok) return { reply: s.value };
  return { lost: lostOf(s.error) };
}

/** The `error` of a request that could not be made, for each rule that read it (as check.guard stated it). */
export const lostJudgement = (rule: string, id: string, lost: Lost): Judgement => ({
  rule,
  id,
  verdict: 'error',
  message: lost.cause,
  evidence: ev(lost.exchanges),
});

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
  /** The run seed (which near misses). */
  seed: number;
}

/** One attempt: the token values in a form (undefined: no token), its raw reply. Throws CouldNotTest when it could not tell. */
export type NodeAttempt<R> = (
  form: FormId | undefined,
  values: readonly string[] | undefined,
  purpose: string,
  cause: string,
) => Promise<R>;

/** What NAUTH-07 reads of a reply: whether data came back, the words for what the node did, the evidence. */
export interface ReplyFacts {
  data: boolean;
  what: string;
  evidence: Evidence;
}

export interface NodeProbe {
  form?: FormId;
  values?: readonly string[];
  kind: AuthProbe['probe'];
  label: string;
  expect: 'refuse' | 'observe';
  rotating?: boolean;
}

/** The right token in a form the description does not show on the path, and what it got. */
export interface OpenFormSent<R> {
  form: FormId;
  got: Outcome<R>;
}

/** A refusal probe and what its attempt got. */
export interface SentRefusal<R> {
  probe: NodeProbe;
  got: Outcome<R>;
}

const openFormId = (row: NodeRow, form: FormId) => `${row.id}[${form}]`;

const refusalId = (row: NodeRow, p: NodeProbe) =>
  p.form ? `${row.id}[${p.rotating ? 'rotating' : p.kind}:${p.form}]` : `${row.id}[no-token]`;

/**
 * Tries the right token in forms the description does not show on this path (a few at once);
 * `dataOf` says which got data: those forms join the accepted ones,
 * so the wrong tokens are tried there too.
 */
export async function sendOpenForms<R>(
  row: NodeRow,
  forms: readonly FormId[],
  token: string,
  attempt: NodeAttempt<R>,
  dataOf: (reply: R) => boolean,
): Promise<{ sent: OpenFormSent<R>[]; accepted: FormId[] }> {
  const answers = await settleAll(
    forms.map((form) => () => attempt(form, [token], openFormId(row, form), OPEN_FORM_CAUSE)),
    AUTH_CONCURRENCY,
  );
  const sent = forms.map((form, i) => ({ form, got: outcomeOf(answers[i]!) }));
  const accepted = sent.filter((s) => 'reply' in s.got && dataOf(s.got.reply)).map((s) => s.form);
  return { sent, accepted };
}

/**
 * A stream's token forms beyond the documented one (`openForms`), then NAUTH-07's refusals in every
 * form that took the right token: `accepted` (the documented form, when it did) and the open ones.
 */
export async function sendOpenFormsThenRefusals<R>(
  row: NodeRow,
  openForms: readonly FormId[],
  token: string,
  attempt: NodeAttempt<R>,
  dataOf: (reply: R) => boolean,
  accepted: readonly FormId[],
): Promise<{ open: OpenFormSent<R>[]; refusals: SentRefusal<R>[] }> {
  const open = await sendOpenForms(row, openForms, token, attempt, dataOf);
  const forms = [...accepted, ...open.accepted].map((f) => Promise.resolve(f));
  return { open: open.sent, refusals: await sendRefusals(row, token, attempt, forms) };
}

/**
 * Sends the refusals as the right token's answers come in: no token at once, and each form's wrong
 * tokens as soon as that form is known to be accepted (`forms`: each settles to its form when the
 * right token got data there, to undefined otherwise), so a form still waiting for its answer (a
 * rate-limited node's quota) holds up only its own. A few in flight at once: on a rate-limited node
 * each still waits its turn under the per-second cap (its `attempt` is paced), and a slow answer
 * does not hold back the next turn. Outcomes come back in plan order: no token, then the forms in
 * the order given.
 */
export async function sendRefusals<R>(
  row: NodeRow,
  token: string,
  attempt: NodeAttempt<R>,
  forms: readonly Promise<FormId | undefined>[],
): Promise<SentRefusal<R>[]> {
  const seed = row.seed;
  const run = taskQueue(AUTH_CONCURRENCY);
  const send = (probe: NodeProbe) =>
    run(() =>
      attempt(
        probe.form,
        probe.values,
        refusalId(row, probe),
        probe.kind === 'none' ? NO_TOKEN_CAUSE : WRONG_TOKEN_CAUSE,
      ),
    ).then((answer) => ({ probe, answer }));
  const noToken = send({ kind: 'none', label: 'no token', expect: 'refuse' });
  const perForm = forms.map(async (pending, k) => {
    const form = await pending;
    if (!form) return [];
    // A rotating kind is picked by the form's place among the accepted ones (every kind on a full row).
    // On the rate-limited node every request waits its turn under the per-second cap: every kind goes
    // in its first accepted form, one rotating kind in each other form (the comparison of a token
    // does not depend on where it was read from; each form still meets a wrong token).
    const place = row.full && !row.refuseOnly ? k : (await Promise.all(forms.slice(0, k))).filter(Boolean).length;
    const full = row.full && (!row.refuseOnly || place === 0);
    return wrongCredentials(form, token, seed, { full, index: row.index * 3 + place })
      .filter((w) => !row.refuseOnly || w.expect === 'refuse')
      .map((w) =>
        send({ form, values: w.values, kind: w.kind, label: w.label, expect: w.expect, rotating: w.rotating }),
      );
  });
  const sent = await Promise.all([noToken, ...(await Promise.all(perForm)).flat()]);
  return sent.map(({ probe, answer }) => ({ probe, got: outcomeOf(answer) }));
}

/** NAUTH-07's observations of the right token in the forms not shown on the path (observed, never failed). */
export function judgeOpenForms<R>(
  row: NodeRow,
  sent: readonly OpenFormSent<R>[],
  facts: (reply: R) => ReplyFacts,
): Judgement[] {
  return sent.map(({ form, got }) => {
    const id = openFormId(row, form);
    if ('lost' in got) return lostJudgement('NAUTH-07', id, got.lost);
    const r = facts(got.reply);
    const { expected: _expected, ...evidence } = r.evidence;
    const authProbe: AuthProbe = { row: row.row, form, probe: 'right', documented: false, data: r.data };
    return {
      rule: 'NAUTH-07',
      id,
      verdict: 'observed',
      message: `${row.label}, the token as ${form} (a form not shown there): ${r.data ? 'accepted' : 'not accepted'}, ${r.what}`,
      evidence: { ...evidence, [AUTH_PROBE_FIELD]: authProbe },
    };
  });
}

/** NAUTH-07 on the refusals, in plan order: a refusal passes, data fails (observed where the description is open). */
export function judgeRefusals<R>(
  row: NodeRow,
  sent: readonly SentRefusal<R>[],
  facts: (reply: R) => ReplyFacts,
): Judgement[] {
  return sent.map(({ probe: p, got }) => {
    const id = refusalId(row, p);
    if ('lost' in got) return lostJudgement('NAUTH-07', id, got.lost);
    const r = facts(got.reply);
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
    if (p.expect === 'observe')
      return { rule: 'NAUTH-07', id, verdict: 'observed', message: `${what}: ${r.what}`, evidence };
    return {
      rule: 'NAUTH-07',
      id,
      verdict: r.data ? 'fail' : 'pass',
      message: r.data ? `${what}: ${r.what}, with data` : `${what}: ${r.what}`,
      evidence,
    };
  });
}
