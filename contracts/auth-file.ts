// The auth matrix's answers as a file: the contract stage sends the matrix itself while Playwright
// starts (contracts/stage-work.ts) and writes what it got here; the AUTH tests read it and judge
// (auth.spec.ts), so Playwright's report still has a test per rule. The file holds endpoints by id
// and no credential value: no secret and no near miss of one is written to disk (exchanges are
// already redacted by their Recorder).
import type { WrongCredential } from '../src/auth/wrong-credentials.js';
import { RULES } from '../src/rules/catalogue.js';
import type { ResolvedTarget } from '../src/target-file/types.js';
import type { AuthAnswers, NoCredentialsSent, UsageSent, WrongKeySent } from './auth-send.js';
import { apiEndpoints, baseUrlOf, type ApiEndpoint } from './matrix.js';
import { readPublished } from './stage-files.js';

/** An answer as the file holds it: the endpoint by its id, a wrong credential without the values sent. */
type Stored<T extends { ep: ApiEndpoint }> = Omit<T, 'ep'> & { ep: string };
interface StoredWrong extends Omit<Stored<WrongKeySent>, 'w'> {
  w: Omit<WrongCredential, 'values'>;
}

export interface AuthAnswersFile {
  usages: Stored<UsageSent>[];
  none: Stored<NoCredentialsSent>[];
  wrong: StoredWrong[];
  /** The matrix could not be sent: the AUTH tests fail with this line. */
  error?: string;
}

/** The answers as the file holds them. */
export function storeAuthAnswers(a: AuthAnswers): AuthAnswersFile {
  return {
    usages: a.usages.map((s) => ({ ...s, ep: s.ep.id })),
    none: a.none.map((s) => ({ ...s, ep: s.ep.id })),
    wrong: a.wrong.map(({ w: { values: _values, ...w }, ...s }) => ({ ...s, ep: s.ep.id, w })),
  };
}

/** The answers again, with the worker's own endpoints (the same target gives the same ids). */
export function reviveAuthAnswers(f: AuthAnswersFile, endpoints: readonly ApiEndpoint[]): AuthAnswers {
  if (f.error !== undefined) throw new Error(f.error);
  const ep = (id: string) => {
    const found = endpoints.find((e) => e.id === id);
    if (!found) throw new Error(`the contract stage's auth answers name an endpoint this target lacks: ${id}`);
    return found;
  };
  return {
    usages: f.usages.map((s) => ({ ...s, ep: ep(s.ep) })),
    none: f.none.map((s) => ({ ...s, ep: ep(s.ep) })),
    wrong: f.wrong.map((s) => ({ ...s, ep: ep(s.ep), w: { ...s.w, values: [] } })),
  };
}

/** The API hosts the matrix sends to. */
export function authHosts(target: ResolvedTarget): string[] {
  const api = target.api;
  const urls = api ? [baseUrlOf(api, 'base'), baseUrlOf(api, 'legacy')] : [];
  return [...new Set(urls.filter((u): u is string => u !== undefined).map((u) => new URL(u).host))];
}

/** The AUTH tests' answers from the stage's file. */
export async function readAuthAnswers(
  file: string,
  deadline: number,
  endpoints: readonly ApiEndpoint[],
): Promise<AuthAnswers> {
  return reviveAuthAnswers(await readPublished<AuthAnswersFile>(file, deadline, 'the auth matrix'), endpoints);
}

/** Whether the stage can send the matrix: the target has API endpoints and some AUTH rule is selected. */
export function authMatrixWanted(target: ResolvedTarget, selected: (rule: string) => boolean): boolean {
  return apiEndpoints(target).length > 0 && RULES.some((r) => r.section === 'AUTH' && selected(r.id));
}
