import type { MiddlewareHooks } from '../../src/middleware';

/** Middleware hooks that do nothing: a test spreads them and adds the ones it looks at. */
export function quietHooks(): MiddlewareHooks {
  return {
    onProgress: () => undefined,
    approvalStarted: () => undefined,
    approvalEnded: () => undefined,
    onJobStarted: () => undefined,
    askForTask: async () => undefined,
    serverPayload: () => ({}),
  };
}
