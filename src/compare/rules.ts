// The rules of a comparison of two deployments (`--compare`, `chainprobe compare`): what is
// compared, how, and within which tolerance. Each has a stable id (CMP-xx) that the report shows
// beside every difference it found, and that a waiver may name (a latency difference, for one,
// belongs to no catalogue rule). The numbers here are the tolerances the report states.
import type { ResultsComparisonRule } from '../types/generated/results.js';

/** A rule of the comparison as results.json states it (`comparison.rules`). */
export type ComparisonRule = ResultsComparisonRule;

/**
 * Latency (CMP-12): a family's figure differs when the slower side is more than FACTOR times the
 * faster and more than the margin slower, each figure only from enough timed requests on both sides
 * (a few requests sent in one burst take what the machine gives them at that moment).
 */
export const LATENCY = {
  factor: 2,
  medianMarginMs: 250,
  p95MarginMs: 500,
  medianMinRequests: 20,
  p95MinRequests: 40,
} as const;

/** The block-number tolerance of a results file that records none (the target file's default). */
export const DEFAULT_BLOCK_TOLERANCE = 2;

/** CMP-08: two answers further apart than this (runs made at different times) are not compared by block number. */
export const BLOCKS_APART_MS = 60_000;

/** The limiter's T (CMP-11): the two estimates' bands may lie this far apart (a share of T) before they differ. */
export const T_SLACK = 0.01;

/** retry-after (CMP-11): the largest values a 429 carried may differ by this many seconds. */
export const RETRY_AFTER_SLACK_S = 1;

export const COMPARISON_RULES: readonly ComparisonRule[] = [
  {
    id: 'CMP-01',
    title: 'Checks are paired by rule and check id',
    description:
      'Each side keeps the ids of its own target file. A resource id in a check id (an event, a collection) that only one side names is ' +
      'paired with the other side’s by its place among the ids that side names there; where both name the same resource, its checks ' +
      'pair directly. Node checks pair by node name. A check only one side made is a difference; a rule only one side ran, or one ' +
      'side skipped because its target file has no section for it, is listed as not compared.',
  },
  {
    id: 'CMP-02',
    title: 'Verdicts',
    description: 'Each rule’s rolled-up verdict and each paired check’s verdict, exactly.',
  },
  {
    id: 'CMP-03',
    title: 'Statuses and content types',
    description:
      'The requests of paired checks are paired by method, path (ids as placeholders) and purpose; their statuses and media types ' +
      '(without parameters) are compared exactly. A request only one side sent is a difference.',
  },
  {
    id: 'CMP-04',
    title: 'Header sets',
    description:
      'The names of the response headers, as sets. Their values are not compared: dates, request ids and the limiter’s counters ' +
      'change with every answer. Hop-by-hop headers (Connection, Keep-Alive, Transfer-Encoding and the like) describe the ' +
      'connection, not the answer, and are left out.',
  },
  {
    id: 'CMP-05',
    title: 'Body shapes',
    description:
      'The type skeleton of each JSON body (the shape observations record: field names and JSON types, never values), field by ' +
      'field. An empty list fits any list: it shows no item to take a shape from.',
  },
  {
    id: 'CMP-06',
    title: 'JSON-RPC error codes',
    description: 'The error codes of JSON-RPC answers (each element of a batch), exactly.',
  },
  {
    id: 'CMP-07',
    title: 'Answers value by value where both asked for the same resource',
    description:
      'Where both sides sent the same request for a resource named by id (the same path and query, credentials and page tokens ' +
      'aside, and the same body), the answers are compared value by value by CMP-08 to CMP-10; a value whose type differs is ' +
      'CMP-05’s. Answers about a node’s or chain’s current state (a head, fee statistics, node status: no id in the request) ' +
      'change by the second and are compared by shape, and their block numbers by CMP-08.',
  },
  {
    id: 'CMP-08',
    title: 'Block numbers within the targets’ tolerance',
    description:
      'A value under a key naming a block number, height or ledger, and the result of a block-number call, are equal when they ' +
      'differ by no more than the looser of the two targets’ api.native.blockNumberTolerance (results.json `tolerances`, 2 ' +
      'when a run does not record it): the two sides were asked a moment apart. Answers given more than a minute apart (runs ' +
      'made at different times) are not compared by block number: the head moved meanwhile.',
  },
  {
    id: 'CMP-09',
    title: 'Opaque tokens and times by shape',
    description:
      'A page token or cursor is compared by what it is (absent, null, empty or a token), never by its text. A time (a key ' +
      'naming a time, date or timestamp, or an ISO 8601 value) by its form: ISO 8601, Unix seconds, Unix milliseconds, or its ' +
      'JSON type.',
  },
  {
    id: 'CMP-10',
    title: 'Free text with its numbers aside',
    description:
      'A text for people (a string with spaces: an error message) is compared with its numbers masked: a message may name the ' +
      'head, an id or a time.',
  },
  {
    id: 'CMP-11',
    title: 'The rate limiter by its estimates',
    description:
      'The rate-limit probes send as the run’s pacing and the bucket allow, so their requests are not paired one by one. Compared ' +
      'instead: Limit and burst exactly; T where the two estimates’ bands lie more than 1% of T apart; the most ' +
      'requests accepted in one second where either side went over its declared cap; what a 429 carries, the ' +
      'limiter’s and the cap’s: status, rate-limit headers, retry-after’s presence, form and largest value ' +
      '(within 1 s), content type, and whether a cap refusal uses quota.',
  },
  {
    id: 'CMP-12',
    title: 'Latency per family',
    description:
      'The median and the 95th percentile of the time each request spent on the network (sent to answered), per access family. ' +
      'A figure differs when the slower side’s is more than twice the faster side’s and more than 250 ms (median) or 500 ms ' +
      '(95th percentile) longer. A median is compared only from 20 timed requests on each side, a 95th percentile from 40: ' +
      'a few requests sent in one burst take what the client machine gives them at that moment.',
  },
  {
    id: 'CMP-13',
    title: 'The NFT walk',
    description:
      'The rarity walk’s pages and items, where both walked the same collection, and on any collection the items met twice, the ' +
      'unranked items, the ranks missing and the steps down in rank.',
  },
  {
    id: 'CMP-14',
    title: 'Observations',
    description:
      'What a check recorded where the description is open, field by field (lists as sets). Its status, content type and body ' +
      'shape restate its requests’ and are compared there (CMP-03, CMP-05), once. The rate-limit probes’ observations count the ' +
      'run’s own requests and are compared through CMP-11.',
  },
];

const BY_ID = new Map(COMPARISON_RULES.map((r) => [r.id, r]));

export const isComparisonRuleId = (id: string): boolean => BY_ID.has(id);
export const comparisonRule = (id: string): ComparisonRule | undefined => BY_ID.get(id);
