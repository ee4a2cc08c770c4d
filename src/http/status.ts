// What counts as an accepted answer, for the probes' samples and the report's timeline alike.

/** A 2xx answer; no answer at all (a network error, a timeout) is not one. */
export const is2xx = (answer: { status?: number } | undefined): boolean =>
  answer?.status !== undefined && answer.status >= 200 && answer.status < 300;
