// An event loop on a virtual clock, for engine tests: timers and answers are events at virtual
// times. An event is delivered once the clock has reached it, on a later macrotask (after the
// script's microtasks, as a real loop delivers callbacks); when the script waits and nothing is due,
// the clock moves on to the next event, as a real process would idle until it.
export class VirtualLoop {
  private readonly events: { at: number; fire: () => void }[] = [];
  private pumping = false;
  /** Virtual ms the clock moved while the script waited for an event (not in a blocking sleep). */
  idleMs = 0;

  constructor(public clock: number) {}

  /** Resolves when the clock has reached `at` (at once, on a later macrotask, when it already has). */
  at<T>(at: number, value: () => T): Promise<T> {
    return new Promise((resolve) => {
      this.events.push({ at, fire: () => resolve(value()) });
      this.pump();
    });
  }

  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    setImmediate(() => {
      this.pumping = false;
      if (!this.events.length) return;
      this.events.sort((a, b) => a.at - b.at);
      // Nothing is due: the script is waiting (its microtasks ran), so time passes until the next event.
      if (this.events[0]!.at > this.clock) {
        this.idleMs += this.events[0]!.at - this.clock;
        this.clock = this.events[0]!.at;
      }
      const due = this.events.filter((e) => e.at <= this.clock);
      this.events.splice(0, due.length);
      for (const e of due) e.fire();
      this.pump();
    });
  }
}
