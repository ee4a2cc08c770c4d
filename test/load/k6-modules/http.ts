import type { FakeK6 } from '../k6-double.js';

const fake = () => (globalThis as { __chainprobeFakeK6?: FakeK6 }).__chainprobeFakeK6!;

export default {
  asyncRequest: (method: string, url: string, body: null, params?: { headers?: Record<string, string> }) =>
    fake().asyncRequest(method, url, body, params),
};
