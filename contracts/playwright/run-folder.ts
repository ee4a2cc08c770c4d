// What a Playwright run's workers leave for the workers after them. Playwright ends a worker after
// every failing test and starts a fresh one, whose worker fixtures start from nothing: without this
// folder each new worker sent its families' plans again, on a fresh share of `limits.maxRequests`,
// so a target that failed a few rules was sent several times what the target file allows. Here a
// family's judged outcome is written once it is sent, and each worker's spend under its slot
// (Playwright's parallelIndex, which a restarted worker keeps): a new worker reads the outcomes
// instead of sending, and starts its share of the budget where its slot's earlier workers left it.
// Everything written is what a reporter may see: checks and exchanges are redacted when recorded.
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FamilyOutcome } from '../engine.js';
import type { ContractFamily } from '../plan.js';

/** A family's outcome as a later worker gets it (the exchanges stay with the worker that sent them). */
export type StoredOutcome = Omit<FamilyOutcome, 'exchanges'>;

/** Creates the folder of a new run; `remove` deletes it (the runner calls it as it exits). */
export function newRunFolder(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'chainprobe-playwright-run-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export class RunFolder {
  constructor(
    readonly dir: string,
    /** Playwright's parallelIndex: the slot a restarted worker takes over. */
    private readonly slot: number,
    /** Playwright's workerIndex: unique to this worker process within the run. */
    private readonly worker: number,
  ) {}

  private outcomeFile(family: ContractFamily): string {
    return join(this.dir, `outcome-${family}.json`);
  }

  /** The outcome an earlier worker of the run wrote for this family, if any. */
  outcome(family: ContractFamily): StoredOutcome | undefined {
    try {
      return JSON.parse(readFileSync(this.outcomeFile(family), 'utf8')) as StoredOutcome;
    } catch {
      return undefined;
    }
  }

  saveOutcome({ exchanges: _, ...outcome }: FamilyOutcome): void {
    this.write(this.outcomeFile(outcome.family), outcome);
  }

  /** The requests every earlier worker of this slot took. */
  spentBefore(): number {
    const mine = new RegExp(`^spent-${this.slot}-(\\d+)\\.json$`);
    let total = 0;
    for (const name of readdirSync(this.dir)) {
      const m = mine.exec(name);
      if (m && Number(m[1]) !== this.worker)
        total += (JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as { requests: number }).requests;
    }
    return total;
  }

  /** This worker's own spend so far (rewritten whole each time). */
  saveSpent(requests: number): void {
    this.write(join(this.dir, `spent-${this.slot}-${this.worker}.json`), { requests });
  }

  /** Written whole or not at all: a worker reading at the same time never sees half a file. */
  private write(file: string, value: unknown): void {
    const part = `${file}.${process.pid}.part`;
    writeFileSync(part, JSON.stringify(value));
    renameSync(part, file);
  }
}
