// A target file's problems, one line each ("<json path>: <what is wrong>"). Apart from the loader so
// that a command's error handling does not load the schema validator.
export class TargetError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'TargetError';
  }
}
