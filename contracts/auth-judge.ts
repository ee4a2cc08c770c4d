// The auth rules' judgements (AUTH-01..12): pure functions from what the matrix's requests got
// (contracts/auth-send.ts) to verdicts, one function per rule in AUTH_JUDGES. The same checks, ids,
// messages and evidence as when sending and judging were one loop.
import { AUTH_FORMS, type BaseKind, type KeyUsage } from '../src/auth/forms.js';
import { AUTH_PROBE_FIELD, type AuthProbe } from '../src/auth/surface.js';
import type { Verdict } from '../src/verdict.js';
import type { Stated } from './checks.js';
import { ev, verdict } from './checks.js';
import { OWN_KEY, probedFormOf, usageRules, type ApiEndpoint } from './matrix.js';
import { wrongKeyRule, type AuthAnswers, type Sent, type WrongKeySent } from './auth-send.js';

const BASE_LABEL = { base: 'the base URL', legacy: 'the legacy base URL' } as const;

function formLabel(form: KeyUsage['form']): string {
  const f = AUTH_FORMS[form];
  return f.transport === 'query' ? `${f.name} query parameter` : f.id === 'bearer' ? 'Bearer' : `${f.name} header`;
}

/** The auth surface row of an endpoint on one base URL. */
const rowOf = (ep: ApiEndpoint, base: BaseKind) => `${ep.id} @ ${base === 'base' ? 'base URL' : 'legacy base URL'}`;

/** A request that got no answer to judge: skipped (the target lacks what it needs) or error (with its cause). */
function unanswered(rule: string, id: string, sent: Exclude<Sent, { kind: 'answer' }>): Stated {
  return sent.kind === 'skipped'
    ? { rule, id, verdict: 'skipped', message: sent.reason, evidence: { cause: sent.reason } }
    : { rule, id, verdict: 'error', message: sent.cause, evidence: ev(sent.exchanges) };
}

/** A rule's checks on the right-key usages: accepted (must), the other parameters applied (AUTH-06), or observed. */
export function judgeUsages(answers: AuthAnswers, rule: string): Stated[] {
  const out: Stated[] = [];
  for (const { ep, u, id, sent } of answers.usages) {
    const rules = usageRules(ep, u);
    const i = rules.findIndex((r) => r.rule === rule);
    if (i < 0) continue;
    const r = rules[i]!;
    if (sent.kind !== 'answer') {
      out.push(unanswered(rule, id, sent));
      continue;
    }
    const { data, status, exchange } = sent.answer;
    const what = `${u.key === 'newKey' ? 'new' : 'legacy'} key as ${formLabel(u.form)} on ${BASE_LABEL[u.base]} (${ep.id})`;
    const observation = { ...sent.answer.answer, accepted: data };
    // The request's one auth surface entry rides on its first check.
    const probe =
      i === 0 && probedFormOf(u)
        ? {
            [AUTH_PROBE_FIELD]: {
              row: rowOf(ep, u.base),
              form: u.form,
              probe: 'right',
              documented: u.expect === 'accept',
              data,
            } satisfies AuthProbe,
          }
        : {};
    if (r.expect === 'open')
      out.push({
        rule,
        id,
        verdict: 'observed',
        message: `${what}: ${data ? 'accepted' : 'refused'} with ${status}`,
        evidence: ev(exchange, { observation, ...probe }),
      });
    else if (r.honoured) {
      const problem = sent.answer.honouredProblem;
      out.push(
        verdict(
          !problem,
          rule,
          id,
          `${what}: apiKey joined with & accepted and the other parameters applied`,
          `${what}: ${problem}`,
          ev(exchange, { observation, ...probe }),
        ),
      );
    } else
      out.push(
        verdict(
          data,
          rule,
          id,
          `${what}: accepted (${status} with data)`,
          `${what}: not accepted: ${status}${status >= 200 && status < 300 ? ' without the resource in the body' : ''}`,
          ev(exchange, { expected: '2xx with the resource', actual: status, observation, ...probe }),
        ),
      );
  }
  return out;
}

/** AUTH-07 on requests without credentials: no data. */
export function judgeNoCredentials(answers: AuthAnswers): Stated[] {
  return answers.none.map(({ ep, base, id, sent }) => {
    if (sent.kind !== 'answer') return unanswered('AUTH-07', id, sent);
    const { data, status, exchange } = sent.answer;
    const where = `${BASE_LABEL[base]} (${ep.id})`;
    const authProbe: AuthProbe = { row: rowOf(ep, base), form: 'none', probe: 'none', data, expect: 'refuse' };
    return verdict(
      !data,
      'AUTH-07',
      id,
      `no credentials on ${where}: no data (${status})`,
      `no credentials on ${where}: got data (${status} with the resource)`,
      ev(exchange, {
        expected: 'no 2xx with the resource',
        actual: status,
        observation: sent.answer.answer,
        [AUTH_PROBE_FIELD]: authProbe,
      }),
    );
  });
}

function judgeWrongKey({ ep, base, form, w, id, sent }: WrongKeySent): Stated {
  const rule = wrongKeyRule(w);
  if (sent.kind !== 'answer') return unanswered(rule, id, sent);
  const { data, status, exchange } = sent.answer;
  const value =
    w.kind === 'empty' ? 'an empty value' : `${OWN_KEY[base] === 'newKey' ? 'new' : 'legacy'} key (${w.label})`;
  const what = `${value} as ${formLabel(form)} on ${BASE_LABEL[base]} (${ep.id})`;
  const authProbe: AuthProbe = { row: rowOf(ep, base), form, probe: w.kind, data, expect: w.expect };
  // A rotating kind's status may differ from the last run's kind (401 for empty, 403 for a near miss): not drift.
  const observation = w.rotating ? { accepted: data } : { ...sent.answer.answer, accepted: data };
  const evidence = ev(exchange, {
    expected: 'no 2xx with the resource',
    actual: status,
    observation,
    [AUTH_PROBE_FIELD]: authProbe,
  });
  if (w.expect === 'observe')
    return {
      rule,
      id,
      verdict: 'observed' as Verdict,
      message: `${what}: ${data ? 'accepted' : 'refused'} with ${status}`,
      evidence,
    };
  return verdict(
    !data,
    rule,
    id,
    `${what}: no data (${status})`,
    `${what}: got data (${status} with the resource)`,
    evidence,
  );
}

/** A rule's checks on the wrong keys sent in the accepted forms. */
export const judgeWrongKeys = (answers: AuthAnswers, rule: string): Stated[] =>
  answers.wrong.filter((s) => wrongKeyRule(s.w) === rule).map(judgeWrongKey);

/** Each AUTH rule's judgement over the matrix's answers. */
export const AUTH_JUDGES: Record<string, (answers: AuthAnswers) => Stated[]> = {
  'AUTH-07': (a) => [...judgeNoCredentials(a), ...judgeWrongKeys(a, 'AUTH-07')],
  'AUTH-08': (a) => judgeWrongKeys(a, 'AUTH-08'),
  'AUTH-10': (a) => [...judgeUsages(a, 'AUTH-10'), ...judgeWrongKeys(a, 'AUTH-10')],
};

/** The judgement of an AUTH rule: its own entry, or its checks on the right-key usages. */
export const judgeAuth = (rule: string, answers: AuthAnswers): Stated[] =>
  (AUTH_JUDGES[rule] ?? ((a: AuthAnswers) => judgeUsages(a, rule)))(answers);
