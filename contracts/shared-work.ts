// The works of one spec's family (contracts/work.ts) as its rule tests run them. A worker runs every
// work at once, started by the first of those tests, each with clients of its own (fixtures:
// fresh()), unless the contract stage sent it (its checks are then read from the stage's file); each
// rule's test (titled by the catalogue, its rule id its tag, as h2spec keys a case to its clause)
// takes its rule's checks from the works that have them.
import type { Exchange } from '../src/record/recorder.js';
import { readPublished } from './stage-files.js';
import { FAMILY_WORKS, type WorkFamily } from './families.js';
import { stageKey, type WorkEnv } from './work.js';
import type { RuleDef } from '../src/rules/catalogue.js';
import type { CheckResult } from '../src/verdict.js';
import { suiteEnv } from './env.js';
import type { SharedClients, Spec } from './fixtures.js';
import type { Non2xx } from './protocol.js';

export interface Work {
  title: string;
  rules: readonly string[];
  run: (c: SharedClients) => Promise<void>;
  /** Its requests' time at most, ms: the timeout of the tests that wait for it. */
  timeoutMs: number;
  /** The tests that read it come after the others (it waits for something else: the probes). */
  late?: boolean;
}

interface WorkDone {
  checks: CheckResult[];
  non2xx: Non2xx[];
  exchanges: Exchange[];
  /** Its non-2xx answers (ERR-01) and exchanges (HAR, timing) went with the first test that waited for it. */
  claimed: boolean;
}

export class SharedWork {
  private readonly works: Work[] = [];
  private readonly running = new Map<Work, Promise<WorkDone>>();

  private add(work: Work): void {
    this.works.push(work);
  }

  /**
   * A family's works (contracts/families.ts): sent by this worker, or, when the contract stage sent
   * one itself (contracts/stage-work.ts), its checks read from the file the stage writes.
   */
  addFamily(family: WorkFamily): void {
    const env = suiteEnv();
    const list = FAMILY_WORKS[family](suiteWorkEnv());
    for (const [i, w] of list.entries()) {
      const file = env.stageChecks[stageKey(family, i)];
      const run: Work['run'] = file
        ? async ({ check }) => {
            const got = await readPublished<{ checks: CheckResult[]; error?: string }>(file, env.deadline, w.title);
            check.adopt(got.checks);
          }
        : w.run;
      const timeoutMs = w.timeoutMs ?? (w.requests ?? 4) * env.target.limits.timeoutMs;
      // In a full run the rate-limited node's work waits for the probes: the tests that read it come last.
      this.add({ title: w.title, rules: w.rules, run, timeoutMs, late: w.rateLimited });
    }
  }

  /** Starts, once per worker, every piece with a selected rule: all at once. */
  private start(fresh: () => SharedClients): void {
    for (const w of this.works) {
      if (this.running.has(w) || !w.rules.some((r) => suiteEnv().selected(r))) continue;
      const done = (async (): Promise<WorkDone> => {
        const c = fresh();
        await w.run(c);
        return { checks: c.check.results, non2xx: c.api.non2xx, exchanges: c.recorder.exchanges, claimed: false };
      })();
      // Its tests await it and fail on a throw; until one does, it is not an unhandled rejection.
      done.catch(() => undefined);
      this.running.set(w, done);
    }
  }

  /** One test per rule the pieces check (titled by the catalogue, the rule id its tag), in catalogue order, those reading a late piece last. */
  declareTests(spec: Spec, rules: readonly RuleDef[]): void {
    const mine = rules.filter((r) => this.works.some((w) => w.rules.includes(r.id)));
    const late = (rule: string) => this.works.some((w) => w.late && w.rules.includes(rule));
    for (const rule of [...mine.filter((r) => !late(r.id)), ...mine.filter((r) => late(r.id))]) {
      const pieces = this.works.filter((w) => w.rules.includes(rule.id));
      const timeoutMs = late(rule.id)
        ? suiteEnv().target.limits.maxSeconds * 1000
        : pieces.reduce((ms, w) => ms + w.timeoutMs, 5_000);
      spec.contract(
        rule.title,
        [rule.id],
        async ({ api, check, recorder, fresh }) => {
          this.start(fresh);
          for (const w of pieces) {
            const done = await this.running.get(w);
            if (!done) continue;
            if (!done.claimed) {
              done.claimed = true;
              api.non2xx.push(...done.non2xx);
              recorder.exchanges.push(...done.exchanges);
            }
            check.adopt(done.checks.filter((c) => c.rule === rule.id));
          }
        },
        { timeoutMs },
        true,
      );
    }
  }
}

/** A family's WorkEnv in a worker: the suite's target, seed and start. */
function suiteWorkEnv(): WorkEnv {
  const { target, seed, startedAt } = suiteEnv();
  return { target, seed, startedAt };
}
