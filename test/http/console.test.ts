import { useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';

/** The real service serves the real console build (dist/console/, built by the jest global setup). */
const svc = useApiSpecification();

describe('GET / (the web console)', () => {
  it('answers the page without a key, with its CSP, and every file it names from this origin', async () => {
    const res = await svc.request('/', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await res.text();
    const files = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(files.filter((f) => f.startsWith('/assets/'))).toHaveLength(2); // one script, one stylesheet
    for (const file of files) {
      expect(file.startsWith('/')).toBe(true); // never another origin
      const asset = await svc.request(file, { key: null });
      expect(asset.status).toBe(200);
      if (file.startsWith('/assets/')) expect(asset.headers.get('cache-control')).toContain('immutable');
      // Nothing in the bundle loads from elsewhere at run time: no absolute URL but the XML namespaces of SVG and MathML.
      const text = await asset.text();
      expect([...text.matchAll(/https?:\/\/[^\s"'`)]+/g)].map((m) => m[0]).filter((u) => !u.startsWith('http://www.w3.org/'))).toEqual([]);
    }
  });

  it('leaves the API as it was: a request without a key is still a 401', async () => {
    expect((await svc.request('/api/v1/presets', { key: null })).status).toBe(401);
    expect((await svc.request('/', { method: 'POST', key: null })).status).toBe(401);
    expect((await svc.request('/api/v1/presets', { key: KEYS.writer })).status).toBe(200);
  });
});
