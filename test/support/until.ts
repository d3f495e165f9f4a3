/** Waits until `condition` holds, looking every 10 ms; throws once `ms` have passed without it. */
export const until = async (condition: () => boolean, ms = 15_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
};
