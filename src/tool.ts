// chainprobe's name and version as results.json and --version state them; kept equal to
// package.json's version by a test (the k6 bundle cannot read package.json).
export const TOOL = { name: 'chainprobe', version: '0.1.0' } as const;
