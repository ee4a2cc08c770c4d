export default {
  test: {
    abort(message?: string): never {
      throw new Error(`k6 test aborted: ${message ?? ''}`);
    },
  },
};
