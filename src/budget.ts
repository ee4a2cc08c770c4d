// The run's request and time budget (target file `limits`), shared by every process of a run.
// Playwright workers are separate processes, so the count lives in a file: each request appends
// one byte with O_APPEND (atomic) and reads the size back. Concurrent takers can only make the
// count look higher, never lower, so the bound is never exceeded.
import { closeSync, fstatSync, openSync, statSync, writeSync } from 'node:fs';

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
  /** Counter file shared by the run's processes; in-memory when absent. */
  counterFile?: string;
  /** A second file counting only this part's requests (a fleet's per-node spend); never a bound. */
  tallyFile?: string;
}

export class Budget {
  private fd: number | undefined;
  private tallyFd: number | undefined;
  private local = 0;

  constructor(readonly spec: BudgetSpec) {
    if (spec.counterFile) this.fd = openSync(spec.counterFile, 'a');
    if (spec.tallyFile) this.tallyFd = openSync(spec.tallyFile, 'a');
  }

  /** Requests counted in a run's counter file, read from outside a Budget (0 when there is none). */
  static usedIn(counterFile: string): number {
    try {
      return statSync(counterFile).size;
    } catch {
      return 0;
    }
  }

  /** Requests taken so far by every process of the run. */
  used(): number {
    return this.fd === undefined ? this.local : fstatSync(this.fd).size;
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
    let count: number;
    if (this.fd === undefined) count = ++this.local;
    else {
      writeSync(this.fd, '.');
      count = fstatSync(this.fd).size;
    }
    if (count > this.spec.maxRequests)
      throw new BudgetExceeded('requests', `the run reached limits.maxRequests (${this.spec.maxRequests})`);
    if (this.tallyFd !== undefined) writeSync(this.tallyFd, '.');
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

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    if (this.tallyFd !== undefined) closeSync(this.tallyFd);
    this.tallyFd = undefined;
  }

  static unlimited(): Budget {
    return new Budget({ maxRequests: Number.MAX_SAFE_INTEGER, deadline: Number.MAX_SAFE_INTEGER });
  }
}
