/**
 * Waiting for something the code under test does asynchronously (a server starting, a message,
 * a state change). Tests wait for the event, never for a fixed time: the bound is only there to
 * fail a test whose event never comes, so it is generous (a loaded machine can be slow) and the
 * same everywhere. Mocha's own timeout (.mocharc.json) is larger still.
 */
export const EVENT_TIMEOUT_MS = 30000;

export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false,
  options: { timeoutMs?: number; explain?: () => string } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? EVENT_TIMEOUT_MS;
  const start = Date.now();
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() - start > timeoutMs) {
      throw new Error(`timed out waiting for ${what}${options.explain ? `\n${options.explain()}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
