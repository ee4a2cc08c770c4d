// The run's request and time budget (target file `limits`), shared by every part of a run: the
// contract plans in the command's thread and the probes in theirs count in one shared memory word.
// A claim past the bound still counts, so the count can only look higher, never lower: the bound
// is never exceeded.

export class BudgetExceeded extends Error {
  constructor(
    readonly what: 'requests' | 'seconds',
    detail: string,
  ) {
    super(`budget: ${detail}`);
    this.name = 'BudgetExceeded';
  }
}

export interface BudgetSpec {
  maxRequests: number;
  /** Absolute wall-clock deadline (ms since epoch). */
  deadline: number;
  /** The run's request counter (newCounter), shared with the probes' threads; a counter of its own when absent. */
  counter?: SharedArrayBuffer;
  /** A second counter of only this part's requests (a fleet's per-node spend); never a bound. */
  tally?: SharedArrayBuffer;
}

/** A request counter threads share (a worker thread gets the same memory through postMessage or workerData). */
export const newCounter = (): SharedArrayBuffer => new SharedArrayBuffer(4);

/** The count a counter holds. */
export const countOf = (counter: SharedArrayBuffer): number => Atomics.load(new Int32Array(counter), 0);

export class Budget {
  private readonly count: Int32Array;
  private readonly tally?: Int32Array;

  constructor(readonly spec: BudgetSpec) {
    this.count = new Int32Array(spec.counter ?? newCounter());
    if (spec.tally) this.tally = new Int32Array(spec.tally);
  }

  /** Requests taken so far by every part of the run. */
  used(): number {
    return Atomics.load(this.count, 0);
  }

  remaining(): number {
    return Math.max(0, this.spec.maxRequests - this.used());
  }

  msLeft(now = Date.now()): number {
    return this.spec.deadline - now;
  }

  /** Claims one request; throws BudgetExceeded when the run may not send it. */
  take(): void {
    if (Date.now() >= this.spec.deadline) throw new BudgetExceeded('seconds', 'the run reached limits.maxSeconds');
    // Atomics.add gives the count before this claim: concurrent takers each get their own.
    if (Atomics.add(this.count, 0, 1) + 1 > this.spec.maxRequests)
      throw new BudgetExceeded('requests', `the run reached limits.maxRequests (${this.spec.maxRequests})`);
    if (this.tally) Atomics.add(this.tally, 0, 1);
  }

  /** Whether n more requests fit, without claiming them. */
  fits(n: number): boolean {
    return this.used() + n <= this.spec.maxRequests && Date.now() < this.spec.deadline;
  }

  /** Which bound keeps n more requests from fitting, in words; undefined when they fit. */
  shortfall(n: number): string | undefined {
    if (Date.now() >= this.spec.deadline) return 'the run reached limits.maxSeconds';
    const left = this.remaining();
    return left < n ? `limits.maxRequests leaves ${left} request(s)` : undefined;
  }

  static unlimited(): Budget {
    return new Budget({ maxRequests: Number.MAX_SAFE_INTEGER, deadline: Number.MAX_SAFE_INTEGER });
  }
}
