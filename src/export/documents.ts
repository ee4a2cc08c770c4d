// The exported documents by kind, as the text written to a file: `npm run export` writes them
// where it is told, and `npm run generate` keeps the copies under docs/ (its --check fails on drift).
import { openApiDocument } from './openapi.js';
import { openRpcDocument } from './openrpc.js';

export const EXPORTS = {
  openapi: { docsFile: 'openapi.json', build: openApiDocument },
  openrpc: { docsFile: 'openrpc.json', build: openRpcDocument },
} as const;

export type ExportKind = keyof typeof EXPORTS;

export const documentText = (kind: ExportKind): string => `${JSON.stringify(EXPORTS[kind].build(), null, 2)}\n`;
