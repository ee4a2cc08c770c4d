// The trust settings as data, free of Node imports: the target types (also read by the k6
// scripts' type-check) need them without pulling in the file reading of trust.ts.

export interface TlsSettings {
  /** Absolute paths of PEM files with CA certificates, trusted in addition to the system roots. */
  ca: string[];
  /** Absolute paths of the client certificate and its key (mutual TLS). */
  cert?: string;
  key?: string;
  /** Verification off (staging only): said in the headline and in results.json. */
  insecure: boolean;
}

/** What results.json records about trust (file names of CAs, never a key or its path). */
export interface TlsRecord {
  insecure: boolean;
  ca: string[];
  clientCertificate: boolean;
}
