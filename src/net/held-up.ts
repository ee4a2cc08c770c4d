// How long this process could not run: the time its event loop was held up, by a machine whose
// cores are busy elsewhere or by a long synchronous stretch of its own. A request's timeout does not
// count that time: an answer that arrived while the process could not read it did not come late, and
// a process that resumes runs its due timers before it reads its sockets. A target that does not
// answer still times out: an idle process is held up by nothing.

/** The tick of the watch, and the lateness of a tick that is ordinary timer jitter. */
export const TICK_MS = 50;
export const SLACK_MS = 50;

/** Shorter holds are not worth a timer of their own (and bound how often a wait is extended). */
export const MIN_EXTENSION_MS = 100;

/** The held-up time of one clock, from ticks due every TICK_MS (pure: the clock and the ticks are given). */
export class HeldUp {
  private total = 0;
  private last: number;
  constructor(private readonly now: () => number) {
    this.last = now();
  }
  private lateness(t: number): number {
    const late = t - this.last - TICK_MS;
    return late > SLACK_MS ? late : 0;
  }
  /** A tick of the watch's timer: its lateness past the slack was time held up. */
  tick(): void {
    const t = this.now();
    this.total += this.lateness(t);
    this.last = t;
  }
  /** Held up so far, ms, the stretch since the last tick included; never decreases. */
  ms(): number {
    return this.total + this.lateness(this.now());
  }
}

let watch: HeldUp | undefined;

/** This process's held-up time so far, ms; the watch starts at the first call (its timer keeps no process alive). */
export function heldUpMs(): number {
  if (!watch) {
    const w = new HeldUp(() => performance.now());
    setInterval(() => w.tick(), TICK_MS).unref();
    watch = w;
  }
  return watch.ms();
}

export interface Timeout {
  clear(): void;
  /** The held-up time the wait was extended by, ms (0 when it never was). */
  extendedMs(): number;
}

/**
 * Calls `onTimeout` once `ms` of this process's running time have passed: the time it was held up
 * meanwhile is waited again, up to `ms` more, so no wait lasts past twice its length.
 */
export function timeoutExcludingHeldUp(ms: number, onTimeout: () => void, held: () => number = heldUpMs): Timeout {
  const from = held();
  let extended = 0;
  let timer: NodeJS.Timeout;
  const due = () => {
    const more = Math.min(held() - from, ms) - extended;
    if (more >= MIN_EXTENSION_MS) {
      extended += more;
      timer = setTimeout(due, more);
    } else onTimeout();
  };
  timer = setTimeout(due, ms);
  return { clear: () => clearTimeout(timer), extendedMs: () => Math.round(extended) };
}

/** What a timeout's message says when its wait was extended (a test tells a starved run by it). */
export const HELD_UP_WORDS = 'this machine held chainprobe up';

/** The words a timeout's message ends with when its wait was extended. */
export function heldUpNote(t: Timeout): string {
  const ms = t.extendedMs();
  return ms > 0 ? `, not counting ${ms} ms ${HELD_UP_WORDS}` : '';
}
