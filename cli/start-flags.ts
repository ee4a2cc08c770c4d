// The flag table of the run command (`npm start`, the bin's `chainprobe`): its parser, --help and
// docs/commands.md read it. Apart from cli/start.ts, which starts the run, so the run's module
// (cli/start-main.ts) types its flags from here without importing its own starter.
import { FAMILIES } from '../src/rules/catalogue.js';
import { INSTALLED } from '../src/package.js';
import { defineCommand } from './args.js';
import { NODE_KINDS, type NodeKind } from '../src/target-file/types.js';
import { SUMMARY_MD_FLAG } from './flags.js';
import { METRICS_FLAGS } from './metrics-flags.js';
import { SHARD_FLAG } from './shard-flag.js';
import { COMPARE_FLAGS } from './compare-flags.js';

/** What `--node <kind>` selects: the node family, and the probes on the rate-limited kind. */
export const NODE_SELECTION: Readonly<Record<NodeKind, string>> = {
  blockRest: 'node',
  chainB: 'node',
  horizon: 'node,load',
};
export type { NodeKind };

export const START = defineCommand({
  invocation: 'npm start --',
  prefix: 'chainprobe',
  summary:
    'Tests a deployment of the blockchain access service against its description (docs/rules.md): ' +
    'the contract checks and the rate-limit probes, side by side. Without --target or --node it tests the embedded reference service.',
  flags: {
    target: {
      type: 'string',
      multiple: true,
      value: '<file.json>',
      path: true,
      help: 'the target file describing a deployment to test (see docs/target-file.md); several deployments share one run and one report',
    },
    only: {
      type: 'string',
      value: '<selectors>',
      help: `run a subset, comma-separated: ${['contracts', ...Object.keys(FAMILIES)].join(', ')}, a section (NFT) or a rule id (NFT-09)`,
    },
    out: {
      type: 'string',
      value: '<dir>',
      path: true,
      default: INSTALLED ? 'chainprobe-report' : 'reports/latest',
      help: 'where the reports go: index.html, results.json, junit.xml',
    },
    'summary-md': SUMMARY_MD_FLAG,
    har: {
      type: 'string',
      value: '<file.har>',
      path: true,
      help: 'also write every request and response of the run (contract checks and probes) as HAR 1.2, credentials redacted',
    },
    ...METRICS_FLAGS,
    shard: SHARD_FLAG,
    baseline: {
      type: 'string',
      value: '<results.json>',
      path: true,
      help: 'an earlier results.json: report what changed in the observations',
    },
    history: {
      type: 'string',
      value: '<dir>',
      path: true,
      help: "a folder keeping every run's results.json: the report shows each rule's and node's last verdicts and the limiter estimates' drift",
    },
    'fail-on-drift': { type: 'boolean', help: 'with --baseline: exit 1 when an observation changed' },
    ...COMPARE_FLAGS,
    runner: {
      type: 'string',
      choices: ['engine', 'playwright'],
      default: 'engine',
      help:
        "the contract rules' host: chainprobe's own engine in this process, or Playwright Test " +
        '(one test per rule, its HTML report in <out>/playwright); the probes run in this process either way',
    },
    node: {
      type: 'string',
      choices: [...NODE_KINDS],
      help: 'ad hoc: test one dedicated node without a target file (needs --endpoint and --token-env)',
    },
    endpoint: { type: 'string', value: '<url>', help: "with --node: the node's endpoint URL" },
    'token-env': {
      type: 'string',
      value: '<VARIABLE>',
      help: "with --node: the environment variable holding the node's token (never the token itself)",
    },
    customer: {
      type: 'string',
      choices: ['dedicated', 'shared'],
      help: "with --node horizon or the embedded reference: the node's plan (without it, RL-09 reports which plan the measured rate matches)",
    },
    'hourly-limit': {
      type: 'string',
      integer: [1, 10_000_000],
      help: "with --node horizon or the embedded reference: the plan's requests per hour, when raised above the default",
    },
    'websocket-url': {
      type: 'string',
      value: '<ws(s)://...>',
      help: "with --node chainB: the node's WebSocket URL (default wss://<host>:8443/websocket)",
    },
    'grpc-address': {
      type: 'string',
      value: '<host:port>',
      help: "with --node chainB: the node's gRPC address (default <host>:443)",
    },
    'grpc-insecure': { type: 'boolean', help: 'with --node chainB: gRPC without TLS (a local or test node)' },
    fault: {
      type: 'string',
      multiple: true,
      list: true,
      value: '<name>',
      help: 'embedded reference only: switch on a fault that breaks one rule; npm run reference -- --list-faults lists them',
    },
    variant: {
      type: 'string',
      multiple: true,
      list: true,
      value: '<name>',
      help: 'embedded reference only: switch on an open-behaviour variant that breaks no rule; npm run reference -- --list-variants lists them',
    },
    ca: {
      type: 'string',
      multiple: true,
      value: '<file.pem>',
      path: true,
      help: 'trust this CA (PEM) for HTTPS, WSS and gRPC over TLS, besides the system roots',
    },
    insecure: { type: 'boolean', help: 'verify no TLS certificate (staging only; the report headline says so)' },
    seed: {
      type: 'string',
      integer: [0, 9_999_999_999],
      value: '<N>',
      help: 'send the same near-miss credentials and cross-check the same NFT items as the run whose results.json has "seed": N (default: a new seed per run)',
    },
  },
  examples: [
    'npm start',
    'npm start -- --target targets/staging.json --only nft,auth',
    'npm start -- --target targets/production.json --compare targets/staging.json --waivers waivers.json',
    'npm start -- --node horizon --endpoint https://node-c.example --token-env MY_TOKEN --customer shared',
    'npm start -- --node chainB --endpoint http://127.0.0.1:8080 --token-env MY_TOKEN ' +
      '--websocket-url ws://127.0.0.1:8081/websocket --grpc-address 127.0.0.1:9090 --grpc-insecure',
  ],
  listsCommands: true,
  exit: [
    '0  no check failed or errored, and at least one was checked (a failure an unexpired waiver covers does not count)',
    '1  a check failed or errored; no selected rule was checked (every one skipped: one line names why); ' +
      'or, with --fail-on-drift, an observation changed; with --compare, on either side, ' +
      'and with --fail-on-difference a difference no waiver covers',
    '2  the run could not start (bad flag, bad target file, unset or empty variable, unusable --out, bad --waivers file, unreachable --compare target)',
    '130  interrupted (partial reports written)',
  ],
});
