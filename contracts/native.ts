// The native JSON-RPC family (RPC-01..12) as a family contract: the plan sends JSON-RPC requests to
// the native endpoint of every configured network (contracts/native-send.ts), the judges hold the
// answers to the documented envelope and to JSON-RPC 2.0 in full (contracts/native-judge.ts).
import { NATIVE_JUDGES } from './native-judge.js';
import { sendNative, type NativeAnswers } from './native-send.js';
import { hostOf, type FamilyContract } from './plan.js';
import { dataAccess } from './urls.js';

export const NATIVE: FamilyContract<NativeAnswers> = {
  family: 'native',
  send: ({ api }, env) => sendNative(api, env),
  judges: NATIVE_JUDGES,
  untestable: (_rule, t) => {
    const access = dataAccess(t.api);
    if (typeof access === 'string') return access;
    return !t.api?.native ? 'target has no api.native section' : undefined;
  },
  hosts: (t) => {
    const access = dataAccess(t.api);
    return t.api?.native && typeof access !== 'string' ? [hostOf(access.base)] : [];
  },
};
