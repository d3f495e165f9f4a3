import { pickBrowser, type BrowserSearch } from '#support/chromium';

/** What a machine has: the executables on it. */
const machine = (executables: string[], overrides: Partial<BrowserSearch> = {}): BrowserSearch => ({
  env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
  platform: 'linux',
  arch: 'x64',
  isExecutable: (path) => executables.includes(path),
  ...overrides,
});

describe('which Chromium the browser tests drive', () => {
  it('uses CHROMIUM_PATH before any system browser', () => {
    const pick = pickBrowser(
      machine(['/opt/chrome/chrome', '/usr/bin/chromium'], { env: { CHROMIUM_PATH: '/opt/chrome/chrome', PATH: '/usr/bin' } }),
    );
    expect(pick).toEqual({ kind: 'path', source: 'CHROMIUM_PATH', executablePath: '/opt/chrome/chrome' });
  });

  it('refuses a CHROMIUM_PATH that is not an executable, naming it, rather than falling back', () => {
    const pick = pickBrowser(machine(['/usr/bin/chromium'], { env: { CHROMIUM_PATH: '/nowhere/chrome' } }));
    expect(pick.kind).toBe('none');
    expect(pick.kind === 'none' && pick.message).toContain('/nowhere/chrome');
  });

  it("uses Debian's Chromium when there is one", () => {
    expect(pickBrowser(machine(['/usr/bin/chromium']))).toEqual({ kind: 'path', source: 'system', executablePath: '/usr/bin/chromium' });
  });

  it('finds a Chrome on PATH', () => {
    const pick = pickBrowser(machine(['/home/me/bin/google-chrome'], { env: { PATH: '/usr/bin:/home/me/bin' } }));
    expect(pick).toEqual({ kind: 'path', source: 'system', executablePath: '/home/me/bin/google-chrome' });
  });

  it('falls back to the npm Chromium on Linux x64 with no browser installed', () => {
    expect(pickBrowser(machine([]))).toEqual({ kind: 'npm' });
  });

  it.each([
    ['darwin', 'arm64'],
    ['win32', 'x64'],
    ['linux', 'arm64'],
  ] as const)('on %s %s with no browser, says how to set CHROMIUM_PATH (never a silent skip)', (platform, arch) => {
    const pick = pickBrowser(machine([], { platform, arch }));
    expect(pick.kind).toBe('none');
    expect(pick.kind === 'none' && pick.message).toMatch(/CHROMIUM_PATH=/);
  });
});
