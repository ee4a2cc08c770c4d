// API-key authentication (AUTH-01..12): every endpoint of the target crossed with every key usage
// of the auth table, plus the refusals: no credentials, and wrong keys (near misses of the real
// one, the empty value, a duplicated apiKey) in every form the base was seen to accept.
import { AUTH_FORMS, type BaseKind, type FormId, type KeyUsage } from '../src/auth/forms.js';
import { AUTH_PROBE_FIELD, type AuthProbe } from '../src/auth/surface.js';
import {
  wrongCredentialCount,
  wrongCredentials,
  wrongCredentialSlot,
  type WrongCredential,
} from '../src/auth/wrong-credentials.js';
import { RULES } from '../src/rules/catalogue.js';
import type { ResolvedApi } from '../src/target-file/types.js';
import type { ApiClient, CallResult, Credential } from './api.js';
import { ev, type Checks } from './checks.js';
import { Spec } from './fixtures.js';
import {
  apiEndpoints,
  baseUrlOf,
  fullEndpoint,
  groupRules,
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
  type Refusal,
} from './matrix.js';
import type { AssetRef, Samples } from './samples.js';
import { AUTH_CONCURRENCY, settleAll, valueOf } from './in-flight.js';
import { bodyShape, mediaType } from './shape.js';
import { suiteEnv } from './env.js';

const spec = new Spec('auth');
const target = suiteEnv().target;
const endpoints = apiEndpoints(target);
const groups = usageGroups();

const OPEN_CAUSE = 'an auth form the description leaves open';
const WRONG_KEY_CAUSE = 'a wrong API key';
/** The run seed: which near misses are sent (src/auth/near-miss.ts), printed in the report. */
const seed = suiteEnv().seed;

/** Status, content type and body shape: the open part of every auth check. */
function answerOf(r: CallResult): Record<string, unknown> {
  return { status: r.status, contentType: mediaType(r.headers) ?? 'none', bodyShape: bodyShape(r.body) };
}

function formLabel(form: KeyUsage['form']): string {
  const f = AUTH_FORMS[form];
  return f.transport === 'query' ? `${f.name} query parameter` : f.id === 'bearer' ? 'Bearer' : `${f.name} header`;
}

async function assetFor(ep: ApiEndpoint, api: ApiClient, samples: Samples): Promise<AssetRef | undefined> {
  return ep.needsAsset ? samples.asset(api) : undefined;
}

function send(
  api: ApiClient,
  ep: ApiEndpoint,
  base: string,
  asset: AssetRef | undefined,
  purpose: string,
  auth?: Credential,
  cause?: string,
) {
  return api.call({
    purpose,
    method: ep.method,
    url: base + ep.path(asset),
    headers: ep.headers,
    body: ep.body,
    auth,
    cause,
  });
}

const BASE_LABEL = { base: 'the base URL', legacy: 'the legacy base URL' } as const;

/** The auth surface row of an endpoint on one base URL. */
const rowOf = (ep: ApiEndpoint, base: BaseKind) => `${ep.id} @ ${base === 'base' ? 'base URL' : 'legacy base URL'}`;

/** Sends the usage's right key; true when data came back (the form is accepted there). */
async function checkUsage(
  ep: ApiEndpoint,
  u: KeyUsage,
  api: ApiClient,
  check: Checks,
  samples: Samples,
  a: ResolvedApi,
): Promise<boolean> {
  const id = `auth.${ep.id}[${u.form}@${u.base}:${u.key}]`;
  const rules = usageRules(ep, u);
  const missing = missingFor(a, u.base, u.key);
  if (missing) {
    for (const r of rules) check.skip(r.rule, id, missing);
    return false;
  }
  let accepted = false;
  await check.guard(
    rules.map((r) => r.rule),
    id,
    async () => {
      const asset = await assetFor(ep, api, samples);
      const res = await send(
        api,
        ep,
        baseUrlOf(a, u.base)!,
        asset,
        id,
        { form: u.form, secret: keyOf(a, u.key)! },
        u.expect === 'open' ? OPEN_CAUSE : undefined,
      );
      const data = res.ok && ep.isData(res.json);
      accepted = data;
      const what = `${u.key === 'newKey' ? 'new' : 'legacy'} key as ${formLabel(u.form)} on ${BASE_LABEL[u.base]} (${ep.id})`;
      const observation = { ...answerOf(res), accepted: data };
      // The request's one auth surface entry rides on its first check.
      const probe = (i: number) =>
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
      for (const [i, r] of rules.entries()) {
        if (r.expect === 'open') {
          check.add(
            r.rule,
            id,
            'observed',
            `${what}: ${data ? 'accepted' : 'refused'} with ${res.status}`,
            ev(res.exchange, { observation, ...probe(i) }),
          );
        } else if (r.honoured) {
          const firstPage = ep.id === 'nft.rarity' ? await samples.rarityFirstPage(api) : undefined;
          const problem = data
            ? ep.honoured?.(res.json, { asset, firstPage })
            : `refused with ${res.status} when apiKey is joined with &`;
          check.verdict(
            !problem,
            r.rule,
            id,
            `${what}: apiKey joined with & accepted and the other parameters applied`,
            `${what}: ${problem}`,
            ev(res.exchange, { observation, ...probe(i) }),
          );
        } else {
          check.verdict(
            data,
            r.rule,
            id,
            `${what}: accepted (${res.status} with data)`,
            `${what}: not accepted: ${res.status}${res.ok ? ' without the resource in the body' : ''}`,
            ev(res.exchange, { expected: '2xx with the resource', actual: res.status, observation, ...probe(i) }),
          );
        }
      }
    },
  );
  return accepted;
}

async function checkNoCredentials(
  ep: ApiEndpoint,
  ref: Refusal,
  api: ApiClient,
  check: Checks,
  samples: Samples,
  a: ResolvedApi,
): Promise<void> {
  const id = `auth.${ep.id}[no-credentials@${ref.base}]`;
  const missing = missingFor(a, ref.base);
  if (missing) return check.skip('AUTH-07', id, missing);
  await check.guard('AUTH-07', id, async () => {
    const asset = await assetFor(ep, api, samples);
    const res = await send(api, ep, baseUrlOf(a, ref.base)!, asset, id, undefined, 'no credentials');
    const data = res.ok && ep.isData(res.json);
    const where = `${BASE_LABEL[ref.base]} (${ep.id})`;
    const authProbe: AuthProbe = { row: rowOf(ep, ref.base), form: 'none', probe: 'none', data, expect: 'refuse' };
    check.verdict(
      !data,
      'AUTH-07',
      id,
      `no credentials on ${where}: no data (${res.status})`,
      `no credentials on ${where}: got data (${res.status} with the resource)`,
      ev(res.exchange, {
        expected: 'no 2xx with the resource',
        actual: res.status,
        observation: answerOf(res),
        [AUTH_PROBE_FIELD]: authProbe,
      }),
    );
  });
}

/** The rule a wrong key answers to: empty is no credential (AUTH-07), another generation's key is AUTH-10's open question. */
function wrongKeyRule(w: WrongCredential): string {
  return w.kind === 'empty' ? 'AUTH-07' : w.kind === 'other-generation' ? 'AUTH-10' : 'AUTH-08';
}

interface WrongKeyProbe {
  base: BaseKind;
  form: FormId;
  w: WrongCredential;
}

function judgeWrongKey(ep: ApiEndpoint, p: WrongKeyProbe, res: CallResult, check: Checks): void {
  const { base, form, w } = p;
  const rule = wrongKeyRule(w);
  const id = wrongKeyId(ep, p);
  const data = res.ok && ep.isData(res.json);
  const value =
    w.kind === 'empty' ? 'an empty value' : `${OWN_KEY[base] === 'newKey' ? 'new' : 'legacy'} key (${w.label})`;
  const what = `${value} as ${formLabel(form)} on ${BASE_LABEL[base]} (${ep.id})`;
  const authProbe: AuthProbe = { row: rowOf(ep, base), form, probe: w.kind, data, expect: w.expect };
  // A rotating kind's status may differ from the last run's kind (401 for empty, 403 for a near miss): not drift.
  const observation = w.rotating ? { accepted: data } : { ...answerOf(res), accepted: data };
  const evidence = ev(res.exchange, {
    expected: 'no 2xx with the resource',
    actual: res.status,
    observation,
    [AUTH_PROBE_FIELD]: authProbe,
  });
  if (w.expect === 'observe')
    check.add(rule, id, 'observed', `${what}: ${data ? 'accepted' : 'refused'} with ${res.status}`, evidence);
  else
    check.verdict(
      !data,
      rule,
      id,
      `${what}: no data (${res.status})`,
      `${what}: got data (${res.status} with the resource)`,
      evidence,
    );
}

const wrongKeyId = (ep: ApiEndpoint, p: WrongKeyProbe) =>
  `auth.${ep.id}[${wrongCredentialSlot(p.w)}:${p.form}@${p.base}]`;

/** Wrong keys in every form the base accepted its own key in (documented or observed), a few in flight at once. */
async function checkWrongKeys(
  ep: ApiEndpoint,
  accepted: Map<BaseKind, Set<FormId>>,
  api: ApiClient,
  check: Checks,
  samples: Samples,
  a: ResolvedApi,
): Promise<void> {
  const probes: WrongKeyProbe[] = [];
  for (const base of ['base', 'legacy'] as const) {
    const real = keyOf(a, OWN_KEY[base]);
    if (!real || !baseUrlOf(a, base)) continue;
    const other = keyOf(a, OWN_KEY[base === 'base' ? 'legacy' : 'base']);
    for (const form of PROBED_FORMS[base]) {
      if (!accepted.get(base)?.has(form)) continue;
      const plan = { full: fullEndpoint(endpoints, ep), index: rotationIndex(endpoints, ep, base, form), other };
      for (const w of wrongCredentials(form, real, seed, plan))
        if (check.wants(wrongKeyRule(w))) probes.push({ base, form, w });
    }
  }
  const answers = await settleAll(
    probes.map(
      (p) => async () =>
        send(
          api,
          ep,
          baseUrlOf(a, p.base)!,
          await assetFor(ep, api, samples),
          wrongKeyId(ep, p),
          { form: p.form, secret: p.w.values },
          p.w.kind === 'empty' ? 'no credentials' : WRONG_KEY_CAUSE,
        ),
    ),
    AUTH_CONCURRENCY,
  );
  for (const [i, p] of probes.entries())
    await check.guard(wrongKeyRule(p.w), wrongKeyId(ep, p), async () =>
      judgeWrongKey(ep, p, valueOf(answers[i]!), check),
    );
}

// One test per endpoint: every key usage (which also learns the forms each base accepts), no
// credentials, then wrong keys in each accepted form. (Per-test overhead, not requests,
// dominates on a local target, so the matrix is not split further.)
for (const ep of endpoints) {
  const rules = [...new Set([...groups.flatMap((g) => groupRules(ep, g)), 'AUTH-07', 'AUTH-08'])];
  const full = fullEndpoint(endpoints, ep);
  const wrong = (['base', 'legacy'] as const).reduce(
    (n, base) => n + PROBED_FORMS[base].reduce((m, f) => m + wrongCredentialCount(f, full), 0),
    0,
  );
  const requests = groups.reduce((n, g) => n + g.usages.length, 0) + NO_CREDENTIALS.length + wrong;
  spec.contract(
    `${ep.id} with every key usage and refusal`,
    rules,
    async ({ api, check, samples }) => {
      const a = target.api!;
      const accepted = new Map<BaseKind, Set<FormId>>();
      // The wrong-key checks need to know the accepted forms, whichever rules were selected.
      const learn = check.wants('AUTH-07', 'AUTH-08', 'AUTH-10');
      for (const g of groups)
        for (const u of g.usages) {
          const form = probedFormOf(u);
          if (!check.wants(...usageRules(ep, u).map((r) => r.rule)) && !(learn && form)) continue;
          if ((await checkUsage(ep, u, api, check, samples, a)) && form)
            accepted.set(u.base, (accepted.get(u.base) ?? new Set()).add(form));
        }
      if (check.wants('AUTH-07'))
        for (const ref of NO_CREDENTIALS) await checkNoCredentials(ep, ref, api, check, samples, a);
      if (learn) await checkWrongKeys(ep, accepted, api, check, samples, a);
    },
    { requests: requests + 2 },
  );
}

spec.coverRest(
  RULES.filter((r) => r.section === 'AUTH').map((r) => r.id),
  (rule, t) => {
    if (!t.api) return 'target has no api section';
    if (endpoints.length === 0) return 'target has no api endpoint to call (no api.universal, api.native or api.nft)';
    if (rule === 'AUTH-12') return 'target has no api.universal entry';
    if (rule === 'AUTH-06')
      return 'target has no NFT endpoint with a query string (api.nft with collectionId or eventIds)';
    return 'not testable with this target';
  },
);
