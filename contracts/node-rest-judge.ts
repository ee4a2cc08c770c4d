// The REST paths' judges: pure functions from what node-rest.ts's requests got to verdicts. The
// right token in each listed form (NAUTH-01..04: accepted where documented, observed where open),
// each path's own NODE rule on the first documented form that got past auth (and fee_stats' HEAD,
// NODE-07), and NAUTH-07 on the refusals.
import { AUTH_PROBE_FIELD, type AuthProbe } from '../src/auth/surface.js';
import type { CallResult } from './api.js';
import { ev, verdict, type Judgement } from './checks.js';
import { judgeRefusals, lostJudgement, type ReplyFacts } from './node-refusals.js';
import {
  AUTH_REFUSALS,
  RATE_LIMITED,
  RATE_LIMITED_STATUS,
  REST_PATHS,
  type RestPathAnswers,
  type RestPathDef,
} from './node-rest.js';
import { bodyShape, mediaType } from '../src/body-shape.js';

function restObservation(res: CallResult): Record<string, unknown> {
  return { status: res.status, contentType: mediaType(res.headers) ?? 'none', bodyShape: bodyShape(res.body) };
}

/** A 2xx whose body is JSON: what "answers 2xx JSON" means. */
function jsonProblem(res: CallResult): string | undefined {
  if (!res.ok) return `answered ${res.status}`;
  if (res.json === undefined)
    return `answered ${res.status} with a body that is not JSON (${mediaType(res.headers) ?? 'no content type'})`;
  return undefined;
}

const error = (rule: string, id: string, cause: string, evidence?: Judgement['evidence']): Judgement => ({
  rule,
  id,
  verdict: 'error',
  message: cause,
  ...(evidence && { evidence }),
});

/** The path's own NODE rule on an accepted answer. */
function judgePath(def: RestPathDef, res: CallResult, requestId: number): Judgement {
  const id = `node.${def.node}.${def.label.replace(/\s+/g, '-')}`;
  const observation = restObservation(res);
  let problem = jsonProblem(res);
  if (!problem && def.rule === 'NODE-04') {
    const got = (res.json as { id?: unknown } | null)?.id;
    if (got !== requestId) problem = `the response id is ${JSON.stringify(got)}, not the request's ${requestId}`;
  }
  return verdict(
    !problem,
    def.rule,
    id,
    `${def.label}: ${res.status} JSON${def.rule === 'NODE-04' ? ', request id echoed' : ''}`,
    `${def.label}: ${problem}`,
    ev(res.exchange, { expected: '2xx JSON', actual: res.status, observation }),
  );
}

/** A token form's rule (NAUTH-01..04) on one path: accepted where the table documents the form, observed where it is open. */
export function judgeTokenForms(a: RestPathAnswers, rule: string): Judgement[] {
  const def = REST_PATHS[a.path];
  const out: Judgement[] = [];
  for (const { usage: u, got } of a.usages) {
    if (u.rule !== rule) continue;
    const id = `node.${a.path}[${u.form}]`;
    if ('lost' in got) {
      out.push(lostJudgement(rule, id, got.lost));
      continue;
    }
    const res = got.reply;
    const refused = AUTH_REFUSALS.includes(res.status);
    const observation = { status: res.status, accepted: res.ok };
    const what = `${def.label}, token as ${u.form}`;
    const authProbe = {
      [AUTH_PROBE_FIELD]: {
        row: a.row.row,
        form: u.form,
        probe: 'right',
        documented: u.expect === 'accept',
        data: res.ok,
      } satisfies AuthProbe,
    };
    if (res.status === RATE_LIMITED_STATUS && RATE_LIMITED.has(def.node))
      out.push(
        error(
          rule,
          id,
          `${what}: rate-limited (429) before the answer could be judged`,
          ev(res.exchange, { observation }),
        ),
      );
    else if (u.expect === 'open')
      out.push({
        rule,
        id,
        verdict: 'observed',
        message: `${what}: ${res.ok ? 'accepted' : refused ? 'refused' : 'answered'} (${res.status})`,
        evidence: ev(res.exchange, { observation, ...authProbe }),
      });
    else if (res.ok || refused)
      out.push(
        verdict(
          res.ok,
          rule,
          id,
          `${what}: accepted (${res.status})`,
          `${what}: refused with ${res.status}`,
          ev(res.exchange, { expected: '2xx', actual: res.status, observation, ...authProbe }),
        ),
      );
    // Neither data nor an auth refusal (a 404, a 500): whether the token was taken cannot be told.
    else
      out.push(
        error(
          rule,
          id,
          `${what}: answered ${res.status}, neither data nor an auth refusal`,
          ev(res.exchange, { observation }),
        ),
      );
  }
  return out;
}

/**
 * The path's own NODE rule: judged on the first answer to a documented form that got past auth; a
 * form that could not be sent before that one carries its cause; every documented form refused is
 * an `error` (the answer could not be judged). fee_stats' HEAD follows (NODE-07).
 */
export function judgePathRule(a: RestPathAnswers): Judgement[] {
  const def = REST_PATHS[a.path];
  const out: Judgement[] = [];
  let judged = false;
  let answered = false;
  for (const { usage: u, requestId, got } of a.usages) {
    if (judged) break;
    if ('lost' in got) {
      out.push(lostJudgement(def.rule, `node.${a.path}[${u.form}]`, got.lost));
      continue;
    }
    answered = true;
    const res = got.reply;
    if (res.status === RATE_LIMITED_STATUS && RATE_LIMITED.has(def.node)) continue;
    if (u.expect === 'accept' && !AUTH_REFUSALS.includes(res.status)) {
      judged = true;
      out.push(judgePath(def, res, requestId));
    }
  }
  // No answer at all: the path's rule already carries the cause, not "refused".
  if (!judged && answered)
    out.push(
      error(
        def.rule,
        `node.${a.path}`,
        `${def.label}: every documented token form was refused, so the answer could not be judged`,
      ),
    );
  if (a.head) out.push(judgeHead(a.head));
  return out;
}

/** NODE-07's HEAD: 2xx without a body. */
function judgeHead(head: NonNullable<RestPathAnswers['head']>): Judgement {
  const id = 'node.feeStats[head]';
  if ('lost' in head) return lostJudgement('NODE-07', id, head.lost);
  const res = head.reply;
  if (res.status === RATE_LIMITED_STATUS)
    return error(
      'NODE-07',
      id,
      'HEAD fee_stats: rate-limited (429) before the answer could be judged',
      ev(res.exchange),
    );
  return verdict(
    res.ok && res.bytes === 0,
    'NODE-07',
    id,
    `HEAD fee_stats: ${res.status}, no body`,
    `HEAD fee_stats: ${res.ok ? `${res.status} with a ${res.bytes}-byte body` : `answered ${res.status}`}`,
    ev(res.exchange, { expected: '2xx without body', actual: { status: res.status, bytes: res.bytes } }),
  );
}

/** What NAUTH-07 reads of a REST answer: 2xx is data. */
export function restFacts(res: CallResult): ReplyFacts {
  return {
    data: res.ok,
    what: res.ok ? `answered ${res.status}` : `refused (${res.status})`,
    evidence: ev(res.exchange, { expected: 'not 2xx', actual: res.status, observation: restObservation(res) }),
  };
}

/** NAUTH-07 on one REST path's refusals. */
export const judgeRestRefusals = (a: RestPathAnswers): Judgement[] =>
  a.refusals ? judgeRefusals(a.row, a.refusals, restFacts) : [];
