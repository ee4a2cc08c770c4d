// What a family's plan hands the run besides its answers: the non-2xx answers it met (ERR-01's
// material), and the one-line form of every check message.
import type { Exchange } from '../src/record/recorder.js';

/** One non-2xx answer (or refused upgrade / failed gRPC call) the suite met. */
export interface Non2xx {
  /** Why the suite expected (or did not expect) a refusal: the ERR-01 group. */
  cause: string;
  purpose?: string;
  method: string;
  /** HTTP status, or `grpc <CODE>` for gRPC. */
  status: number | string;
  contentType?: string;
  bodyShape: unknown;
  exchange: Exchange;
}

const MAX_MESSAGE = 400;

/** Check messages are one line a person can act on. */
export function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE - 1)}…` : flat;
}
