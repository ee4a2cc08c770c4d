// NAUTH-07 on the WebSocket: whether an upgrade with no token or a wrong one got data, judged on
// what the probe recorded. Data is a text or binary message; ping, pong and close are control
// frames and carry none (rules.md NAUTH-07). So a node may refuse at the upgrade (an HTTP error),
// or complete it, answer pings and close it without a message (as a server that checks the token
// after the upgrade does); only a message counts against it. The probe sends a request at the
// upgrade and waits the grace for a message or the close, so a node that took the token answers.
import type { WebSocketProbeResult } from '../src/clients/websocket.js';

/** What the judgement reads of a refusal-mode probe (src/clients/websocket.ts). */
export type WsRefusalFacts = Pick<
  WebSocketProbeResult,
  | 'upgraded'
  | 'status'
  | 'pongMs'
  | 'serverMessages'
  | 'firstMessage'
  | 'closedByServer'
  | 'closedAfterMs'
  | 'graceMs'
  | 'error'
>;

export const WS_REFUSAL_EXPECTED = 'no upgrade, or no text or binary message (closed, or silent through the grace)';

/** Whether the probe got data, and the words for what the node did. */
export function wsRefusal(r: WsRefusalFacts): { data: boolean; what: string } {
  if (!r.upgraded) return { data: false, what: `upgrade refused (${r.status ?? 'no status'})` };
  if (r.firstMessage || r.serverMessages > 0) {
    const kind = r.firstMessage?.binary ? 'binary' : 'text';
    const when = r.firstMessage ? ` ${r.firstMessage.afterMs} ms after the upgrade` : '';
    return { data: true, what: `upgraded and sent a ${kind} message${when}` };
  }
  const control = r.pongMs !== undefined ? ', a ping answered (control frames are not data)' : '';
  if (r.closedByServer !== undefined) {
    const when = r.closedAfterMs !== undefined ? ` ${r.closedAfterMs} ms after the upgrade` : '';
    return {
      data: false,
      what: `upgraded, then closed by the server (code ${r.closedByServer})${when} without a text or binary message${control}`,
    };
  }
  if (r.error) return { data: false, what: `upgraded, then ${r.error}, without a text or binary message${control}` };
  const grace = r.graceMs !== undefined ? ` the ${r.graceMs} ms grace` : ' the probe';
  return { data: false, what: `upgraded, and no text or binary message through${grace} (still open)${control}` };
}

/** The times after the upgrade, beside the observation (they differ run to run). */
export function wsTiming(r: WsRefusalFacts): Record<string, number> | undefined {
  if (!r.upgraded) return undefined;
  const t: Record<string, number> = {};
  if (r.pongMs !== undefined) t.pongMs = r.pongMs;
  if (r.firstMessage) t.firstMessageMs = r.firstMessage.afterMs;
  if (r.closedAfterMs !== undefined) t.closedAfterMs = r.closedAfterMs;
  if (r.graceMs !== undefined) t.graceMs = r.graceMs;
  return t;
}
