// The integrity phase (RL-14): each variation of the request (load/variations.ts), one at a time
// under the per-second cap, while the token's bucket is empty. The bucket refuses them all until
// it takes a request again, so one accepted with a fresh Remaining, or without the limiter's
// headers, got past the token's quota.
//
// It costs its requests and no waiting. Right after the drain's first 429 the bucket may take a
// request again at any moment within one T, so the variations go where the recovery phase already
// waits on an empty bucket: after its 429 right after Remaining 0, until the bucket takes a request
// again (the replay's edge), which is almost a whole T before its retry-after request. What does not
// fit there (a short T) goes after the recovery; without a recovery phase, all go after the drain.
import { analyze, tatAfterLast } from '../analysis.js';
import { is2xx } from '../../src/http/status.js';
import { burstOf } from '../model/gcra.js';
import { hasLimiterHeaders } from '../model/proxy.js';
import type { Sample, Session } from '../session.js';
import { singleClientAddresses, type Variation } from '../variations.js';

export interface IntegrityPlan {
  cap: number;
  /** The customer's T, used when the answers fit no single T. */
  declaredT: number;
  marginMs: number;
  /** Most requests the phase may send (variations and the proxy's refusals of them sent again). */
  maxRequests: number;
}

export interface IntegrityResult {
  /** The plain request's 429 that showed the bucket empty (the drain's first). */
  denial: Sample;
  /** Each variation sent, with its answer (the last try, when the proxy refused earlier ones). */
  sent: { variation: Variation; sample: Sample }[];
  /** Variations not sent, and why. */
  notSent: { variation: Variation; why: string }[];
}

/** Through, as the phase can tell at once: accepted without the limiter's headers, or with more than an edge's Remaining. */
const gotThrough = (s: Sample): boolean =>
  is2xx(s) && (!hasLimiterHeaders(s) || s.rl.remaining === undefined || s.rl.remaining > 1);

export class IntegrityProbe {
  private readonly queue: Variation[];
  readonly result: IntegrityResult;

  constructor(
    variations: readonly Variation[],
    denial: Sample,
    private readonly plan: IntegrityPlan,
    private readonly rnd: () => number,
  ) {
    this.queue = [...variations];
    this.result = { denial, sent: [], notSent: [] };
  }

  get pending(): number {
    return this.queue.length;
  }

  /**
   * The recovery's hook, right after its 429 that followed Remaining 0: as many variations as are
   * surely answered before the bucket may take a request again, under this phase's name.
   */
  async whileEmpty(session: Session): Promise<void> {
    if (!this.queue.length) return;
    const edge = bucketTakesAgainAt(session, this.plan);
    await session.aside('integrity: variations of the request while the bucket is empty', () =>
      this.send(session, edge),
    );
  }

  /** What is left, with nothing after it to disturb. */
  async finish(session: Session): Promise<void> {
    if (!this.queue.length) return;
    session.enter('integrity: variations of the request while the bucket is about empty');
    await this.send(session, Infinity);
  }

  /** Sends the queue in order, paced, each to the limiter (again when the proxy refused it), while `until` allows. */
  private async send(session: Session, until: number): Promise<void> {
    const spent = () => session.samples.filter((s) => s.phase.startsWith('integrity')).length;
    while (this.queue.length) {
      const v = this.queue[0]!;
      const why =
        spent() >= this.plan.maxRequests
          ? `the phase's cost bound (${this.plan.maxRequests} requests)`
          : session.env.budget.shortfall(1);
      if (why) {
        this.result.notSent.push(...this.queue.splice(0).map((variation) => ({ variation, why })));
        return;
      }
      // Answered, and the request after it sent, before the bucket may take one again.
      if (session.nextPacedAt() + session.paceMs + this.plan.marginMs >= until) return;
      this.queue.shift();
      const sample = await session.sendToLimiter('GET', `RL-14: ${v.label}`, undefined, v);
      this.result.sent.push({ variation: v, sample });
      if (v.id === 'client:all' && gotThrough(sample)) this.queue.push(...singleClientAddresses(this.rnd));
    }
  }
}

/**
 * When the token's bucket may take a request again, engine ms (the replay's earliest edge: tat less
 * burst x T); now when the replay does not know.
 */
function bucketTakesAgainAt(session: Session, plan: IntegrityPlan): number {
  const m = analyze(session.samples, plan.cap, { quick: true, declaredT: plan.declaredT });
  const tat = tatAfterLast(m);
  if (!m.T || !tat || m.limit === undefined || !Number.isFinite(tat.lo)) return session.now();
  return tat.lo - burstOf(m.limit) * m.T.hi;
}
