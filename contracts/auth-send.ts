// The auth matrix's sending: every API endpoint of the target with every key usage of the auth
// table, without credentials, and with wrong keys in every form a base accepted its own key in. It
// sends once for all the AUTH tests (from the contract stage, or a worker's first AUTH test), every
// request at once (the ApiClient bounds how many are in flight per host), in two waves: the right
// keys and none first, then the wrong keys in the forms that worked. What each request got is kept
// as the facts its judgements read (contracts/auth-judge.ts); nothing here decides a verdict.
import type { BaseKind, FormId, KeyUsage } from '../src/auth/forms.js';
import { wrongCredentials, wrongCredentialSlot, type WrongCredential } from '../src/auth/wrong-credentials.js';
import type { Exchange } from '../src/record/recorder.js';
import { RULES } from '../src/rules/catalogue.js';
import type { ResolvedApi, ResolvedTarget } from '../src/target-file/types.js';
import type { ApiClient, CallResult, Credential } from './api.js';
import { isCouldNotTest, CouldNotTest } from './checks.js';
import {
  apiEndpoints,
  baseUrlOf,
  fullEndpoint,
  keyOf,
  missingFor,
  NO_CREDENTIALS,
  OWN_KEY,
  PROBED_FORMS,
  probedFormOf,
  rotationIndex,
  usageGroups,
  usageRules,
  type ApiEndpoint,
} from './matrix.js';
import { OPEN_FORM_CAUSE } from './node-refusals.js';
import type { AssetRef, Samples } from './samples.js';
import { bodyShape, mediaType } from '../src/body-shape.js';

export const WRONG_KEY_CAUSE = 'a wrong API key';
export const NO_CREDENTIALS_CAUSE = 'no credentials';

/** What one request got, as its judgements read it. */
export interface Answer {
  status: number;
  /** 2xx with the resource in the body: what "accepted" means for the endpoint. */
  data: boolean;
  /** Status, content type and body shape: the open part of every auth check. */
  answer: Record<string, unknown>;
  exchange: Exchange;
  /** AUTH-06: the endpoint's own query parameters took effect, or why not (a usage with an apiKey joined by &). */
  honouredProblem?: string;
}

/** A request's outcome: its answer, or why it was not made (skipped) or could not be (error). */
export type Sent =
  | { kind: 'answer'; answer: Answer }
  | { kind: 'skipped'; reason: string }
  | { kind: 'error'; cause: string; exchanges: Exchange[] };

export interface UsageSent {
  ep: ApiEndpoint;
  u: KeyUsage;
  id: string;
  sent: Sent;
}

export interface NoCredentialsSent {
  ep: ApiEndpoint;
  base: BaseKind;
  id: string;
  sent: Sent;
}

export interface WrongKeySent {
  ep: ApiEndpoint;
  base: BaseKind;
  form: FormId;
  w: WrongCredential;
  id: string;
  sent: Sent;
}

export interface AuthAnswers {
  usages: UsageSent[];
  none: NoCredentialsSent[];
  wrong: WrongKeySent[];
}

/** The rule a wrong key answers to: empty is no credential (AUTH-07), another generation's key is AUTH-10's open question. */
export function wrongKeyRule(w: WrongCredential): string {
  return w.kind === 'empty' ? 'AUTH-07' : w.kind === 'other-generation' ? 'AUTH-10' : 'AUTH-08';
}

export const usageId = (ep: ApiEndpoint, u: KeyUsage) => `auth.${ep.id}[${u.form}@${u.base}:${u.key}]`;
export const noCredentialsId = (ep: ApiEndpoint, base: BaseKind) => `auth.${ep.id}[no-credentials@${base}]`;

export interface AuthPlan {
  api: ResolvedApi;
  endpoints: readonly ApiEndpoint[];
  /** The run seed: which near misses are sent. */
  seed: number;
  /** Whether a rule is selected: nothing is sent that no selected rule reads. */
  wants: (...rules: string[]) => boolean;
  /** The check id of a wrong key (its slot, form and base). */
  wrongKeyId: (ep: ApiEndpoint, base: BaseKind, form: FormId, w: WrongCredential) => string;
}

/** The AUTH rules, in catalogue order. */
export const AUTH_RULES: readonly string[] = RULES.filter((r) => r.section === 'AUTH').map((r) => r.id);

/** Whether the matrix has something to send: the target has API endpoints and some AUTH rule is selected. */
export function authMatrixWanted(target: ResolvedTarget, selected: (rule: string) => boolean): boolean {
  return apiEndpoints(target).length > 0 && AUTH_RULES.some(selected);
}

/** The API hosts the matrix sends to. */
export function authHosts(target: ResolvedTarget): string[] {
  const api = target.api;
  const urls = api ? [baseUrlOf(api, 'base'), baseUrlOf(api, 'legacy')] : [];
  return [...new Set(urls.filter((u): u is string => u !== undefined).map((u) => new URL(u).host))];
}

/** The matrix a run sends: the target's API endpoints, the run's seed and rule selection. */
export function authPlanOf(target: ResolvedTarget, seed: number, selected: (rule: string) => boolean): AuthPlan {
  return {
    api: target.api!,
    endpoints: apiEndpoints(target),
    seed,
    wants: (...rules) => rules.some((r) => selected(r)),
    wrongKeyId: (ep, base, form, w) => `auth.${ep.id}[${wrongCredentialSlot(w)}:${form}@${base}]`,
  };
}

/** Sends one request for the matrix and keeps what it got; a could-not-test failure becomes an `error`. */
async function outcome(
  api: ApiClient,
  ep: ApiEndpoint,
  base: string,
  samples: Samples,
  purpose: string,
  auth: Credential | undefined,
  cause: string | undefined,
  honour = false,
): Promise<Sent> {
  try {
    const asset: AssetRef | undefined = ep.needsAsset ? await samples.asset(api) : undefined;
    const res: CallResult = await api.call({
      purpose,
      method: ep.method,
      url: base + ep.path(asset),
      headers: ep.headers,
      body: ep.body,
      auth,
      cause,
    });
    const data = res.ok && ep.isData(res.json);
    const answer: Answer = {
      status: res.status,
      data,
      answer: { status: res.status, contentType: mediaType(res.headers) ?? 'none', bodyShape: bodyShape(res.body) },
      exchange: res.exchange,
    };
    if (honour) {
      const firstPage = ep.id === 'nft.rarity' ? await samples.rarityFirstPage(api) : undefined;
      answer.honouredProblem = data
        ? ep.honoured?.(res.json, { asset, firstPage })
        : `refused with ${res.status} when apiKey is joined with &`;
    }
    return { kind: 'answer', answer };
  } catch (e) {
    if (!isCouldNotTest(e)) throw e;
    return { kind: 'error', cause: e.message, exchanges: e instanceof CouldNotTest ? e.exchanges : [] };
  }
}

/** Sends the matrix: the right keys and no credentials at once, then wrong keys in every accepted form at once. */
export async function sendAuth(api: ApiClient, samples: Samples, plan: AuthPlan): Promise<AuthAnswers> {
  const { api: a, endpoints, wants } = plan;
  // The wrong-key checks need to know the accepted forms, whichever rules were selected.
  const learn = wants('AUTH-07', 'AUTH-08', 'AUTH-10');
  const usages: Promise<UsageSent>[] = [];
  const none: Promise<NoCredentialsSent>[] = [];
  for (const ep of endpoints) {
    for (const g of usageGroups())
      for (const u of g.usages) {
        const rules = usageRules(ep, u);
        if (!wants(...rules.map((r) => r.rule)) && !(learn && probedFormOf(u))) continue;
        const id = usageId(ep, u);
        const missing = missingFor(a, u.base, u.key);
        const honour = rules.some((r) => r.honoured);
        usages.push(
          (missing
            ? Promise.resolve<Sent>({ kind: 'skipped', reason: missing })
            : outcome(
                api,
                ep,
                baseUrlOf(a, u.base)!,
                samples,
                id,
                { form: u.form, secret: keyOf(a, u.key)! },
                u.expect === 'open' ? OPEN_FORM_CAUSE : undefined,
                honour,
              )
          ).then((sent) => ({ ep, u, id, sent })),
        );
      }
    if (wants('AUTH-07'))
      for (const { base } of NO_CREDENTIALS) {
        const id = noCredentialsId(ep, base);
        const missing = missingFor(a, base);
        none.push(
          (missing
            ? Promise.resolve<Sent>({ kind: 'skipped', reason: missing })
            : outcome(api, ep, baseUrlOf(a, base)!, samples, id, undefined, NO_CREDENTIALS_CAUSE)
          ).then((sent) => ({ ep, base, id, sent })),
        );
      }
  }
  const [usageSent, noneSent] = await Promise.all([Promise.all(usages), Promise.all(none)]);
  const wrong: Promise<WrongKeySent>[] = [];
  if (learn)
    for (const ep of endpoints) {
      const accepted = (base: BaseKind, form: FormId) =>
        usageSent.some(
          (s) =>
            s.ep === ep &&
            s.u.base === base &&
            probedFormOf(s.u) === form &&
            s.sent.kind === 'answer' &&
            s.sent.answer.data,
        );
      for (const base of ['base', 'legacy'] as const) {
        const real = keyOf(a, OWN_KEY[base]);
        if (!real || !baseUrlOf(a, base)) continue;
        const other = keyOf(a, OWN_KEY[base === 'base' ? 'legacy' : 'base']);
        for (const form of PROBED_FORMS[base]) {
          if (!accepted(base, form)) continue;
          const shape = { full: fullEndpoint(endpoints, ep), index: rotationIndex(endpoints, ep, base, form), other };
          for (const w of wrongCredentials(form, real, plan.seed, shape)) {
            if (!wants(wrongKeyRule(w))) continue;
            const id = plan.wrongKeyId(ep, base, form, w);
            const cause = w.kind === 'empty' ? NO_CREDENTIALS_CAUSE : WRONG_KEY_CAUSE;
            wrong.push(
              outcome(api, ep, baseUrlOf(a, base)!, samples, id, { form, secret: w.values }, cause).then((sent) => ({
                ep,
                base,
                form,
                w,
                id,
                sent,
              })),
            );
          }
        }
      }
    }
  return { usages: usageSent, none: noneSent, wrong: await Promise.all(wrong) };
}
