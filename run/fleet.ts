// A fleet run: several deployments, each possibly listing several nodes of a kind, in one run with
// one report. Contract units (src/fleet/units.ts) run a few at a time; then the rate-limit probes
// run on every distinct horizon token, each plan in a worker thread of its own so that one plan's
// model work never delays another's timers (a token listed twice is probed once). A provider may
// key the bucket by the account rather than the token: first of all, the sharing probe
// (load/sharing.ts) finds which of a deployment's horizon nodes draw on one bucket; those are
// probed one after another, each from full quota, and every other node at once (RL-09 records
// which share, and how it was seen). Contracts finish before any plan starts, so no contract
// request lands in a bucket a plan is measuring.
// Each deployment's `limits` bound everything sent to it, all its nodes together: its units and
// plans share one budget counter and one deadline.
import { setMaxListeners } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Budget, countOf, newCounter } from '../src/budget.js';
import { pause } from '../src/net/pause.js';
import { buildResults, exitCodeOf, type LimiterEstimates, type ResultsFile } from '../src/results.js';
import { Redactor } from '../src/record/redact.js';
import { secretsOf } from '../src/target-file/load.js';
import {
  NODE_KINDS,
  nodesOf,
  type Named,
  type ResolvedHorizon,
  type ResolvedTarget,
} from '../src/target-file/types.js';
import type { CheckResult } from '../src/verdict.js';
import { historyOf } from '../src/fleet/history.js';
import { nodeId, rollupFleet, type FleetNodeInfo } from '../src/fleet/rollup.js';
import { KIND_RULES, slug, unitsOf, type Unit } from '../src/fleet/units.js';
import { runContracts } from '../contracts/engine.js';
import { runProbesInThread } from './probe-thread.js';
import { runProbes } from '../load/run.js';
import { causesAndTls, whenAborted, type RunOptions, type RunOutcome } from './pipeline.js';
import { cover, INTERRUPTED, stageFailed } from '../src/coverage.js';
import { newRunSeed } from '../src/auth/near-miss.js';
import { preflight } from '../src/net/preflight.js';
import { useTls } from '../src/tls/trust.js';
import type { RunContext, TimelineEntry } from '../src/stages.js';
import { RL_RULES } from '../load/plan.js';
import { skippedChecks } from '../load/suite.js';
import { probeBucketSharing, type SharingOutcome } from '../load/sharing.js';
import { sharingCheck, type PlanOrder } from '../load/checks/sharing.js';
import { PLAN_ROOM_MS } from '../load/probes/dynamics.js';
import { Recorder } from '../src/record/recorder.js';
import { diffBaseline, type BaselineDiff } from '../reports/baseline.js';
import { clearReports, REPORT_FILES, timelineJson, writeReports } from '../reports/write.js';
import type { HarExchange } from '../reports/har.js';
import type { Exchange } from '../src/record/recorder.js';

export interface FleetRunOptions extends Omit<RunOptions, 'target'> {
  targets: ResolvedTarget[];
  /** Contract units running at once (default 8: each is a set of plans in this process, bounded per host). */
  contractConcurrency?: number;
}

/** Runs `jobs` with at most `n` at once, in order of start. */
export async function pool<T>(n: number, jobs: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, jobs.length) }, worker));
  return out;
}

/** Spend is counted per node of a kind (names are unique within a kind only). */
const spendKey = (target: string, kind: string, name: string) => `${target}/${kind}/${name}`;

const tag = (checks: CheckResult[], target: string, node?: { kind: string; name: string }): CheckResult[] =>
  checks.map((c) => ({ ...c, target, ...(node && { node: node.name, nodeKind: node.kind }) }));

/** Skipped checks for the node rules a deployment has no node for (every other rule has a unit). */
function absentKinds(t: ResolvedTarget, selected: (id: string) => boolean): CheckResult[] {
  const present = NODE_KINDS.filter((k) => nodesOf(t, k).length > 0);
  const served = new Set(present.flatMap((k) => KIND_RULES[k]));
  const out: CheckResult[] = [];
  for (const kind of NODE_KINDS) {
    if (present.includes(kind)) continue;
    for (const rule of KIND_RULES[kind].filter((r) => selected(r) && !served.has(r))) {
      served.add(rule);
      const reason = `the target file has no nodes.${kind} section`;
      out.push({
        id: `fleet.${rule.toLowerCase()}.no-${kind}`,
        rule,
        verdict: 'skipped',
        message: `skipped: ${reason}`,
        evidence: { cause: reason },
        target: t.name,
      });
    }
  }
  return out;
}

interface Deployment {
  target: ResolvedTarget;
  /** The deployment's request counter: its units and plans share its limits. */
  budget: SharedArrayBuffer;
  deadline: number;
}

/** Margin on a waited Reset, ms (as the probes' own pause keeps). */
const RESET_MARGIN_MS = 25;

/**
 * How long until a bucket is full again after a plan: the time to full quota of its latest answer,
 * as the GCRA model predicted it and as the limiter's Reset said, whichever is longer (a Reset that
 * is wrong must not start the next plan on a bucket that is not full).
 */
function refillMs(timeline: readonly TimelineEntry[]): number | undefined {
  const resetOf = (e: TimelineEntry) => Math.max(e.reset ?? -1, e.predicted?.reset ?? -1);
  let latest: TimelineEntry | undefined;
  for (const e of timeline)
    if (resetOf(e) >= 0 && e.receivedAt !== undefined && (!latest || e.receivedAt > latest.receivedAt!)) latest = e;
  return latest ? resetOf(latest) * 1000 + RESET_MARGIN_MS : undefined;
}

export async function runFleet(opts: FleetRunOptions): Promise<RunOutcome> {
  const startedAt = new Date();
  // Trust is per process: the CLI's --ca/--insecure reach every target alike; a fleet's target files
  // are read with the first one's tls section here (each contract unit's workers use their own).
  useTls(opts.targets.find((t) => t.tls)?.tls);
  const seed = opts.seed ?? newRunSeed();
  const redactor = opts.redactor ?? new Redactor(opts.targets.flatMap(secretsOf), seed);
  const outDir = resolve(opts.outDir);
  const controller = new AbortController();
  const abortedAt = whenAborted(controller.signal);
  // Every unit and plan listens for an interrupt on this one signal.
  setMaxListeners(0, controller.signal);
  const onAbort = () => controller.abort();
  if (opts.signal?.aborted) controller.abort();
  else opts.signal?.addEventListener('abort', onAbort, { once: true });
  const selected = (id: string) => opts.selection.rule(id);
  const progress = opts.progress ?? (() => {});
  const deployments: Deployment[] = opts.targets.map((target) => ({
    target,
    budget: newCounter(),
    deadline: startedAt.getTime() + target.limits.maxSeconds * 1000,
  }));
  const ctxFor = (d: Deployment, target: ResolvedTarget, key: string, onlyRules: readonly string[]): RunContext => {
    const rules = new Set(onlyRules);
    return {
      target,
      selected: (id) => rules.has(id) && selected(id),
      outDir: join(outDir, 'fleet', key),
      budget: d.budget,
      tally: newCounter(),
      deadline: d.deadline,
      seed,
      redactor,
      recordExchanges: opts.har !== undefined,
      signal: controller.signal,
      // Lines of units and plans running at once say whose they are.
      progress: (e) =>
        progress(
          e.stage === 'contracts'
            ? { ...e, family: `${key} ${e.family ?? ''}`.trim() }
            : e.stage === 'probes'
              ? { ...e, phase: `${key} ${e.phase}` }
              : e,
        ),
    };
  };
  const spent = new Map<string, { contracts: number | null; probes: number | null }>();
  const spend = (key: string) => spent.get(key) ?? spent.set(key, { contracts: null, probes: null }).get(key)!;
  const checks: CheckResult[] = [];
  const playwrightReports: string[] = [];
  const exchanges: HarExchange[] = [];
  const collect = (from: Exchange[] | undefined, stage: HarExchange['stage'], target: string, node?: string) =>
    exchanges.push(...(from ?? []).map((x) => ({ ...x, stage, target, ...(node && { node }) })));

  try {
    await clearReports(outDir);
    // One connection per address of every deployment first; unreachable ones fail at once later.
    for (const d of deployments) await preflight(d.target, Math.min(d.target.limits.timeoutMs, 10_000));
    // The horizon nodes to probe: one per distinct token.
    const probes = RL_RULES.some(selected);
    const horizons = deployments.flatMap((d) => nodesOf(d.target, 'horizon').map((node) => ({ d, node })));
    const sameToken = new Map<string, string>();
    const firstByToken = new Map<string, { d: Deployment; node: Named<ResolvedHorizon> }>();
    for (const h of probes ? horizons : []) {
      const first = firstByToken.get(h.node.token);
      if (!first) firstByToken.set(h.node.token, h);
      else
        sameToken.set(
          nodeId({ target: h.d.target.name, name: h.node.name }),
          nodeId({ target: first.d.target.name, name: first.node.name }),
        );
    }
    const probed = [...firstByToken.values()].map(({ d, node }) => {
      const key = `${deployments.indexOf(d)}-${slug(d.target.name)}-probes-${slug(node.name)}`;
      return {
        d,
        node,
        ctx: ctxFor(d, d.target, key, RL_RULES),
        id: nodeId({ target: d.target.name, name: node.name }),
      };
    });
    type Probed = (typeof probed)[number];
    // Which of a deployment's horizon nodes share a bucket, found first: what its requests took from
    // the buckets leaks back while the contracts run, and no contract request is in flight meanwhile.
    const sharing = new Map<Deployment, SharingOutcome>();
    for (const d of deployments) {
      const mine = probed.filter((p) => p.d === d);
      if (mine.length < 2 || controller.signal.aborted) continue;
      const budgets = mine.map(
        (p) =>
          new Budget({
            maxRequests: d.target.limits.maxRequests,
            deadline: d.deadline,
            counter: d.budget,
            tally: p.ctx.tally,
          }),
      );
      const recorder = new Recorder(redactor);
      sharing.set(
        d,
        await probeBucketSharing(
          mine.map((p, i) => ({ id: p.id, horizon: p.node, budget: budgets[i]! })),
          {
            record: (x) => recorder.record(x),
            signal: controller.signal,
            timeoutMs: d.target.limits.timeoutMs,
            progress: (phase, requestsSent) =>
              progress({ stage: 'probes', phase: `${d.target.name} ${phase}`, requestsSent }),
          },
        ),
      );
    }
    // Contracts: every unit with a selected rule, a few at a time.
    const units: [Deployment, Unit][] = deployments.flatMap((d, i) =>
      unitsOf(d.target, i).map((u) => [d, u] as [Deployment, Unit]),
    );
    const jobs = units
      .filter(([, u]) => u.rules.some(selected))
      .map(([d, u]) => async () => {
        if (controller.signal.aborted) return;
        const ctx = ctxFor(d, u.view, u.key, u.rules);
        let got: CheckResult[];
        try {
          const outcome =
            opts.runner === 'playwright'
              ? await (await import('../contracts/playwright/run.js')).runContractsInPlaywright(ctx)
              : await runContracts(ctx);
          // Each unit covers its own rules: its records are named by its deployment and node.
          got = [...outcome.checks, ...cover(ctx.selected, outcome.checks, outcome.gaps)];
          if (outcome.playwrightReport) playwrightReports.push(`fleet/${u.key}/${outcome.playwrightReport}`);
          collect(outcome.exchanges, 'contracts', d.target.name, u.node?.name);
        } catch (e) {
          got = cover(ctx.selected, [], [stageFailed('contracts', e, redactor)]);
        }
        checks.push(...tag(got, d.target.name, u.node));
        if (u.node) spend(spendKey(d.target.name, u.node.kind, u.node.name)).contracts = countOf(ctx.tally!);
      });
    await pool(opts.contractConcurrency ?? 8, jobs);
    for (const d of deployments) checks.push(...absentKinds(d.target, selected));

    // Probes: one plan per distinct horizon token; the nodes of a lane share a bucket (or may) and are
    // probed one after another, lanes at once.
    const limiters = new Map<string, LimiterEstimates | null>();
    let timeline: TimelineEntry[] = [];
    if (probes && !controller.signal.aborted) {
      for (const h of horizons) {
        const probed = sameToken.get(nodeId({ target: h.d.target.name, name: h.node.name }));
        if (!probed) continue;
        const reason = `its token is the one of ${probed} (one bucket): probed once, there`;
        checks.push(...tag(skippedChecks(selected, reason), h.d.target.name, { kind: 'horizon', name: h.node.name }));
      }
      for (const d of deployments) {
        if (nodesOf(d.target, 'horizon').length === 0)
          checks.push(...tag(skippedChecks(selected, 'the target file has no nodes.horizon section'), d.target.name));
      }
      const lanes: Probed[][] = [];
      for (const d of deployments) {
        const mine = probed.filter((p) => p.d === d);
        const s = sharing.get(d);
        if (s) for (const g of s.groups) lanes.push(g.map((id) => mine.find((p) => p.id === id)!));
        else lanes.push(...mine.map((p) => [p]));
      }
      // The sharing probe's requests leak back before the plans start (already, when contracts ran
      // meanwhile): each plan then finds its bucket full, as the last Reset the probe read says.
      const fullAt = Math.max(
        ...[...sharing.values()].flatMap((x) =>
          x.reads.map((r) => (r.reset === undefined ? -Infinity : r.receivedAt + r.reset * 1000 + RESET_MARGIN_MS)),
        ),
      );
      const room = Math.min(...deployments.map((d) => d.deadline)) - Date.now() - PLAN_ROOM_MS;
      const settle = Math.min(fullAt - Date.now(), room);
      if (settle > 0) {
        progress({
          stage: 'probes',
          phase: `waiting ${(settle / 1000).toFixed(1)} s for the buckets to fill after the sharing probe`,
          expectedRemainingMs: settle,
          requestsSent: 0,
        });
        await pause(settle, controller.signal);
      }
      // One plan runs as before, in this thread; several at once each get a thread (own event loop, own timers).
      const threaded = lanes.length > 1;
      const order = new Map<string, PlanOrder>();
      const runPlan = async ({ d, node, ctx, id }: Probed): Promise<TimelineEntry[]> => {
        const ref = { kind: 'horizon', name: node.name };
        try {
          const outcome = threaded ? await runProbesInThread(ctx, node, RL_RULES) : await runProbes(ctx, node);
          checks.push(...tag(outcome.checks, d.target.name, ref));
          limiters.set(id, outcome.limiter);
          collect(outcome.exchanges, 'probes', d.target.name, node.name);
          return outcome.timeline.map((e) => ({ ...e, target: d.target.name, node: node.name }));
        } catch (e) {
          checks.push(...tag(cover(ctx.selected, [], [stageFailed('probes', e, redactor)]), d.target.name, ref));
          return [];
        } finally {
          spend(spendKey(d.target.name, 'horizon', node.name)).probes = countOf(ctx.tally!);
        }
      };
      const runLane = async (lane: Probed[]): Promise<TimelineEntry[]> => {
        const out: TimelineEntry[] = [];
        for (const [i, p] of lane.entries()) {
          if (i > 0) {
            // Each from full quota: the previous plan left the shared bucket drained.
            const prev = lane[i - 1]!;
            const wanted = refillMs(out.filter((e) => e.node === prev.node.name));
            const room = p.d.deadline - Date.now() - PLAN_ROOM_MS;
            const waitMs = Math.min(wanted ?? 0, Math.max(0, room));
            const o: PlanOrder = { after: prev.id, waitedMs: waitMs };
            if (wanted === undefined) o.note = 'its plan left no Reset to wait for';
            else if (waitMs < wanted)
              o.note = `the time limit (limits.maxSeconds) left room for ${Math.round(waitMs / 1000)} s of the ${Math.ceil(wanted / 1000)} s`;
            order.set(p.id, o);
            progress({
              stage: 'probes',
              phase: `${p.id}: waiting ${(waitMs / 1000).toFixed(1)} s for the bucket it shares with ${prev.id} to fill`,
              expectedRemainingMs: waitMs,
              requestsSent: countOf(p.ctx.tally!),
            });
            await pause(waitMs, controller.signal);
          }
          out.push(...(await runPlan(p)));
        }
        return out;
      };
      timeline = (await Promise.all(lanes.map(runLane))).flat();
      if (selected('RL-09'))
        for (const [d, s] of sharing)
          for (const p of probed.filter((x) => x.d === d))
            checks.push(
              ...tag([sharingCheck(s, p.id, order.get(p.id))], d.target.name, { kind: 'horizon', name: p.node.name }),
            );
    }

    const interrupted = controller.signal.aborted;
    // Stopped before a node's plan could judge it (during the sharing probe, the contracts or the wait
    // for full quota): each node's rules say so, as a plan cut short says it of its own.
    if (interrupted && probes)
      for (const p of probed) {
        const ref = { kind: 'horizon', name: p.node.name };
        const mine = checks.filter((c) => c.target === p.d.target.name && c.node === p.node.name);
        checks.push(...tag(cover(p.ctx.selected, mine, [INTERRUPTED]), p.d.target.name, ref));
      }
    if (interrupted) checks.push(...cover(selected, checks, [INTERRUPTED]));

    const nodes: FleetNodeInfo[] = deployments.flatMap((d) =>
      NODE_KINDS.flatMap((kind) =>
        nodesOf(d.target, kind).map((n) => {
          const id = nodeId({ target: d.target.name, name: n.name });
          return {
            target: d.target.name,
            kind,
            name: n.name,
            requestsSent: spent.get(spendKey(d.target.name, kind, n.name)) ?? { contracts: null, probes: null },
            ...(kind === 'horizon' && { limiter: limiters.get(id) ?? null }),
            ...(sameToken.has(id) && { sameTokenAs: sameToken.get(id) }),
          };
        }),
      ),
    );
    const fleet = rollupFleet({
      checks,
      targets: deployments.map((d) => ({ name: d.target.name, requestsSent: countOf(d.budget) })),
      nodes,
    });
    let results = buildResults({
      target: opts.targets.map((t) => t.name).join(', '),
      startedAt,
      finishedAt: new Date(),
      checks,
      // As before when there is exactly one horizon node; with several, each one's is in `fleet`.
      limiter: horizons.length === 1 ? (limiters.values().next().value ?? null) : null,
      extra: {
        selection: opts.selection.text,
        interrupted,
        ...(abortedAt() && { interruptedAt: abortedAt() }),
        seed,
        ...causesAndTls(checks, opts.targets.find((t) => t.tls) ?? opts.targets[0]!),
        ...opts.extra,
        fleet,
      },
    });
    if (opts.finish) results = await opts.finish(results);
    let baseline: BaselineDiff | undefined;
    if (opts.baseline) baseline = diffBaseline(opts.baseline, results);
    // The report's limiter charts read one node's timeline; several nodes' go to timeline.json, tagged.
    const history = historyOf(opts.history, results);
    const { files } = await writeReports(outDir, {
      results,
      timeline: horizons.length === 1 ? timeline : [],
      playwrightReport: playwrightReports.sort()[0],
      baseline,
      history: history.runs,
      ...(opts.har !== undefined && { har: { file: opts.har, exchanges } }),
    });
    history.keep();
    if (horizons.length > 1) await writeFile(join(outDir, REPORT_FILES.timeline), timelineJson(timeline));
    return { results, exitCode: exitCodeOf(results), baseline, files, interrupted };
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
  }
}
