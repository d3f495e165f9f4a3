import { chatBody, removeDir, startTestService } from '../support/service';

describe('persistence and read-your-writes', () => {
  it('keeps presets across a restart: the next POST is the next version', async () => {
    let svc = await startTestService();
    try {
      const first = await (await svc.request('/api/v1/presets/durable/chat/completions', { method: 'POST', json: chatBody() })).json();
      // Keys in an order that is not sorted, at several depths: they come back so from the files.
      const schema = { type: 'object', properties: { reasoning: { type: 'string' }, answer: { type: 'string' } }, required: ['answer'] };
      const ordered = { temperature: 1, response_format: { type: 'json_schema', json_schema: { strict: true, name: 'a', schema } } };
      await svc.request('/api/v1/presets/durable/chat/completions', { method: 'POST', json: chatBody(ordered) });
      svc = await svc.restart();
      const second = await (await svc.request('/api/v1/presets/durable/versions/2')).json();
      expect(JSON.stringify(second.data.config)).toBe(JSON.stringify({ model: 'openai/gpt-4o', ...ordered }));
      const res = await svc.request('/api/v1/presets/durable/responses', {
        method: 'POST',
        json: { model: 'a/b', instructions: 'after restart' },
      });
      expect(res.status).toBe(200);
      const p = (await res.json()).data;
      expect(p.id).toBe(first.data.id);
      expect(p.designated_version.version).toBe(3);
      const versions = await (await svc.request('/api/v1/presets/durable/versions')).json();
      expect(versions.data.map((v: { system_prompt: string }) => v.system_prompt)).toEqual([
        'You are terse.',
        'You are terse.',
        'after restart',
      ]);
    } finally {
      await svc.stop();
      removeDir(svc.dataDir);
    }
  });

  it('answers 202 with a Location to poll when the read model is not there within the bound, and never loses the write', async () => {
    // No projector in this process: the read model cannot catch up, so the bound passes.
    let svc = await startTestService({ PROJECTOR: 'off', READ_YOUR_WRITES_TIMEOUT_MS: '100' });
    try {
      const res = await svc.request('/api/v1/presets/slow/chat/completions', { method: 'POST', json: chatBody() });
      expect(res.status).toBe(202);
      expect(res.headers.get('location')).toBe('/api/v1/presets/slow/versions/1');
      const body = await res.json();
      expect(body.data).toMatchObject({ slug: 'slow', version: 1, status: 'pending' });
      expect((await svc.request('/api/v1/presets/slow')).status).toBe(404);
      expect((await svc.request('/health/ready')).status).toBe(503);
      svc = await svc.restart({ PROJECTOR: 'on' });
      let poll = await svc.request(res.headers.get('location')!);
      for (let i = 0; i < 100 && poll.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 20));
        poll = await svc.request(res.headers.get('location')!);
      }
      expect(poll.status).toBe(200);
      const version = await poll.json();
      expect(version.data).toMatchObject({ version: 1, id: body.data.version_id, preset_id: body.data.preset_id });
    } finally {
      await svc.stop();
      removeDir(svc.dataDir);
    }
  });
});
