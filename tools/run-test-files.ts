// Runs test files with node:test in the order given, `concurrency` at a time, with the spec
// reporter: `node --test` sorts its files by name, which would start the longest ones last.
// Started by tools/run-tests.ts as `node --import tsx tools/run-test-files.ts <n> <file...>`;
// each file gets a process of its own with the same loader.
import { Transform } from 'node:stream';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const [concurrency, ...files] = process.argv.slice(2);
const stream = run({ files, concurrency: Number(concurrency) });
stream.on('test:fail', (data: { todo?: unknown }) => {
  if (!data.todo) process.exitCode = 1;
});
// The spec reporter is a Transform class on Node 20; a ready stream elsewhere.
const reporter =
  typeof spec === 'function' && spec.prototype instanceof Transform ? new (spec as new () => Transform)() : spec;
stream.compose(reporter as Transform).pipe(process.stdout);
