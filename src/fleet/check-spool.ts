// Where a merge keeps its checks: on disk, in a scratch folder of its own. Every check in full, in
// order (results.json is written from it), and each rule's slim copies (what the HTML and JUnit
// reports read: slimCheck) in a file of their own, so a report reads one rule at a time. Lines wait
// in a bounded buffer and are appended in batches; memory stays that of the buffer and the tally.
import { appendFileSync, closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tally, type CheckSet } from '../check-set.js';
import type { CheckResult, Verdict } from '../verdict.js';
import { slimCheck, type MergeSink } from './merge.js';
import { RULES } from '../rules/catalogue.js';

const CATALOGUE: ReadonlySet<string> = new Set(RULES.map((r) => r.id));

/** Buffered bytes (UTF-16 code units) before the pending lines are appended. */
const FLUSH_AT = 1 << 20;

export class CheckSpool implements MergeSink, CheckSet {
  /** Its scratch folder (gone after remove()). */
  readonly dir = mkdtempSync(join(tmpdir(), 'chainprobe-merge-'));
  private readonly fullFile = join(this.dir, 'checks.jsonl');
  private readonly tally = new Tally();
  /**
   * Each catalogue rule's file, in the order its first check came (a rule id from an input is not a
   * file name). Rules outside the catalogue share one file: an input naming thousands of them makes
   * one file, not thousands.
   */
  private readonly files = new Map<string, string>();
  private readonly otherFile = join(this.dir, 'other-rules.jsonl');
  private readonly pending = new Map<string, string[]>();
  private pendingSize = 0;

  add(c: CheckResult): void {
    this.tally.add(c);
    this.queue(this.fullFile, JSON.stringify(c));
    this.queue(this.fileOf(c.rule, true)!, JSON.stringify(slimCheck(c)));
  }

  private fileOf(rule: string, make = false): string | undefined {
    if (!CATALOGUE.has(rule)) return this.tally.verdicts(rule).size ? this.otherFile : undefined;
    let file = this.files.get(rule);
    if (!file && make) this.files.set(rule, (file = join(this.dir, `rule-${this.files.size}.jsonl`)));
    return file;
  }

  private queue(file: string, line: string): void {
    const lines = this.pending.get(file) ?? this.pending.set(file, []).get(file)!;
    lines.push(line);
    this.pendingSize += line.length;
    if (this.pendingSize >= FLUSH_AT) this.flush();
  }

  private flush(): void {
    for (const [file, lines] of this.pending) appendFileSync(file, `${lines.join('\n')}\n`);
    this.pending.clear();
    this.pendingSize = 0;
  }

  get count(): number {
    return this.tally.count;
  }

  rules(): readonly string[] {
    return this.tally.rules();
  }

  verdicts(rule: string): ReadonlySet<Verdict> {
    return this.tally.verdicts(rule);
  }

  of(rule: string): readonly CheckResult[] {
    const file = this.fileOf(rule);
    if (!file) return [];
    this.flush();
    const checks = [...linesOf(file)].map((line) => JSON.parse(line) as CheckResult);
    return file === this.otherFile ? checks.filter((c) => c.rule === rule) : checks;
  }

  *all(): Generator<CheckResult> {
    for (const rule of this.rules()) yield* this.of(rule);
  }

  /** Every check in full, in the order they came: results.json's `checks`. */
  *full(): Generator<CheckResult> {
    this.flush();
    if (!existsSync(this.fullFile)) return;
    for (const line of linesOf(this.fullFile)) yield JSON.parse(line) as CheckResult;
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A file's lines, read in blocks: a rule's file of a large merge is megabytes, and a string that
 * large lives until the next full collection, which a merge may not meet before its peak.
 */
function* linesOf(file: string): Generator<string> {
  const fd = openSync(file, 'r');
  try {
    const block = Buffer.alloc(64 * 1024);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    for (let n; (n = readSync(fd, block, 0, block.length, null)) > 0;) {
      const lines = (rest + decoder.write(block.subarray(0, n))).split('\n');
      rest = lines.pop()!;
      for (const line of lines) if (line) yield line;
    }
    if (rest) yield rest;
  } finally {
    closeSync(fd);
  }
}
