// The types of cli/clone-start.mjs (plain JavaScript: it runs before anything compiles TypeScript).
export declare const CACHE: string;
export declare const PREFIX: string;
export declare function currentCopy(cache?: string): Promise<string | undefined>;
