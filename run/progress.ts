// What a long run is doing, on stderr. A terminal gets one status line redrawn in place; a CI log
// (no TTY) gets plain lines, at most about one a second per stage, so logs stay readable.
import type { ProgressEvent } from '../src/stages.js';
import { formatDuration, printable } from '../reports/text.js';

export interface Progress {
  (e: ProgressEvent): void;
  /** Finishes the status line (TTY) or prints the last throttled state (CI). Safe to call twice. */
  end(): void;
}

/** Least time between two plain lines of one stage, and between two redraws of the status line. */
export const PLAIN_INTERVAL_MS = 1000;
export const TTY_INTERVAL_MS = 100;

type Stage = 'contracts' | 'probes';

interface StageState {
  /** Family or phase: a change is always shown at once. */
  key: string;
  lastAt: number;
  pending?: string;
  startedAt: number;
}

function statusOf(e: Exclude<ProgressEvent, { stage: 'info' }>, st: StageState, now: number): string {
  if (e.stage === 'contracts') {
    const pct = e.total > 0 ? Math.floor((e.done / e.total) * 100) : 0;
    const elapsed = now - st.startedAt;
    const eta = e.done > 0 && e.done < e.total && elapsed > 0 ? (elapsed / e.done) * (e.total - e.done) : undefined;
    return `contracts · ${e.family ?? 'all'} · ${e.done} of ${e.total} rules (${pct}%)${eta === undefined ? '' : ` · ~${formatDuration(eta)} left`}`;
  }
  const left =
    e.expectedRemainingMs === undefined ? '' : ` · ~${formatDuration(Math.max(0, e.expectedRemainingMs))} left`;
  return `probes · ${e.phase} · ${e.requestsSent} requests sent${left}`;
}

export function createProgress(stream: NodeJS.WriteStream, now: () => number = Date.now): Progress {
  const tty = stream.isTTY === true;
  const stages = new Map<Stage, StageState>();
  let status = '';
  let drawnAt = -Infinity;
  let drawn = false;

  const draw = () => {
    const width = Math.max(20, (stream.columns || 100) - 1);
    const line = `chainprobe ${status}`;
    stream.write(`\r\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
    drawn = true;
    drawnAt = now();
  };
  const clear = () => {
    if (drawn) stream.write('\r\x1b[2K');
  };

  const progress = ((e: ProgressEvent) => {
    const t = now();
    if (e.stage === 'info') {
      const msg = printable(e.message);
      if (tty) {
        clear();
        stream.write(`${msg}\n`);
        drawn = false;
        if (status) draw();
      } else stream.write(`chainprobe: ${msg}\n`);
      return;
    }
    const key = e.stage === 'contracts' ? `${e.family ?? ''}` : e.phase;
    let st = stages.get(e.stage);
    const changed = !st || st.key !== key;
    if (!st) {
      st = { key, lastAt: -Infinity, startedAt: t };
      stages.set(e.stage, st);
    }
    st.key = key;
    const line = printable(statusOf(e, st, t));
    const finished = e.stage === 'contracts' && e.done >= e.total;
    if (tty) {
      status = line;
      if (changed || finished || t - drawnAt >= TTY_INTERVAL_MS) draw();
      return;
    }
    if (changed || finished || t - st.lastAt >= PLAIN_INTERVAL_MS) {
      stream.write(`chainprobe: ${line}\n`);
      st.lastAt = t;
      st.pending = undefined;
    } else st.pending = line;
  }) as Progress;

  progress.end = () => {
    if (tty) {
      if (drawn && status) {
        draw();
        stream.write('\n');
      }
      drawn = false;
      status = '';
      return;
    }
    for (const st of stages.values()) {
      if (st.pending) stream.write(`chainprobe: ${st.pending}\n`);
      st.pending = undefined;
    }
  };
  return progress;
}
