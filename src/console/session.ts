/**
 * The signed-in API key lives in this tab's sessionStorage only: never in a URL (it would reach
 * history, logs and Referer headers) and never in localStorage (it would outlive the tab).
 */
const KEY = 'presets.apiKey';

export const storedKey = (): string | null => {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null; // storage disabled: sign in again in each page load
  }
};

export const storeKey = (key: string): void => {
  try {
    sessionStorage.setItem(KEY, key);
  } catch {
    // kept in memory only, for this page load
  }
};

export const forgetKey = (): void => {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // nothing stored
  }
};
