/**
 * Resolves once `check` holds, checking again on each turn of the event loop (no fixed sleeps);
 * fails after `timeoutMs`.
 */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setImmediate(resolve));
  }
}
