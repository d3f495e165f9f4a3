import Router from '@koa/router';
import fc from 'fast-check';
import Koa from 'koa';
import request from 'supertest';
import { apiRoutes, type AppDeps } from '#src/http/app';
import { checkParams, routesByShape, segments } from '#src/http/routing';

/**
 * routesByShape must answer every request as @koa/router's own `routes()` + `allowedMethods()`
 * over the same router does: the reference here is @koa/router itself, not our reading of it.
 */

type Route = { methods: string[]; path: string };

/** The API's route table (templates and methods), read from the real router. */
const apiTable = (): Route[] => {
  const stub = new Proxy({} as AppDeps, {
    get: (_, key) => (key === 'then' || key === 'metrics' || key === 'mounts' ? undefined : () => undefined),
  });
  return apiRoutes(stub).stack.map((layer) => ({ methods: layer.methods.filter((m) => m !== 'HEAD'), path: layer.path as string }));
};

/** A router with the table's routes, each answering which route it is and the params it got. */
const echoRouter = (table: Route[]) => {
  const router = new Router();
  table.forEach(({ methods, path }, i) =>
    router.register(path, methods, (ctx) => {
      ctx.body = { route: i, params: ctx.params, matched: (ctx as { _matchedRoute?: string })._matchedRoute };
    }),
  );
  return router;
};

const appWith = (middleware: Koa.Middleware) => new Koa().use(middleware).callback();
const reference = (table: Route[]) => {
  const router = echoRouter(table);
  return appWith(async (ctx, next) => {
    await router.routes()(ctx as never, async () => undefined);
    await router.allowedMethods()(ctx as never, next);
  });
};
const byShape = (table: Route[]) => appWith(routesByShape(echoRouter(table)) as Koa.Middleware);

const answerOf = async (app: ReturnType<typeof appWith>, method: string, path: string) => {
  const res = await request(app)[method.toLowerCase() as 'get'](path);
  return { status: res.status, allow: res.headers['allow'], body: res.text };
};

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const paramValue = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/),
  fc.constantFrom('a%2Fb', '%E2%9C%93', '%zz', 'x%20y', 'événement', 'ok'),
);
/** A path made from a template: its params filled, sometimes a static segment changed or a slash added. */
const pathFor = (table: Route[]) =>
  fc
    .record({
      route: fc.integer({ min: 0, max: table.length - 1 }),
      values: fc.array(paramValue, { minLength: 4, maxLength: 4 }),
      variant: fc.constantFrom('plain', 'trailing-slash', 'upper-case', 'extra-segment', 'changed-static', 'double-slash'),
    })
    .map(({ route, values, variant }) => {
      let k = 0;
      const segs = table[route]!.path.split('/').map((s) => (s.startsWith(':') ? values[k++ % values.length]! : s));
      if (variant === 'changed-static') segs[3] = `${segs[3]}x`;
      if (variant === 'extra-segment') segs.push('more');
      if (variant === 'double-slash') segs.splice(4, 0, '');
      const path = segs.join('/');
      if (variant === 'trailing-slash') return `${path}/`;
      if (variant === 'upper-case') return path.toUpperCase();
      return path;
    });

describe('routesByShape', () => {
  const table = apiTable();

  it('answers every request to the API routes as @koa/router does (route, params, 404, 405 and Allow, OPTIONS)', async () => {
    const [ref, fast] = [reference(table), byShape(table)];
    await fc.assert(
      fc.asyncProperty(pathFor(table), fc.constantFrom(...METHODS), async (path, method) => {
        expect(await answerOf(fast, method, path)).toEqual(await answerOf(ref, method, path));
      }),
      { numRuns: 400 },
    );
  });

  it('routes a read of a preset, with its slug decoded', async () => {
    const res = await request(byShape(table)).get('/api/v1/presets/caf%C3%A9');
    const route = table.findIndex((r) => r.path === '/api/v1/presets/:slug' && r.methods.includes('GET'));
    expect(JSON.parse(res.text)).toEqual({ route, params: { slug: 'café' }, matched: '/api/v1/presets/:slug' });
  });

  it('answers an unknown method and a path of a length no route has as @koa/router does', async () => {
    const [ref, fast] = [reference(table), byShape(table)];
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/api/v1/presets/a/b/c/d/e/f/g'],
      ['POST', '/api/v1/presets/x'],
      ['OPTIONS', '/api/v1/presets/x'],
    ] as const) {
      expect(await answerOf(fast, method, path)).toEqual(await answerOf(ref, method, path));
    }
    const unknown = await Promise.all([reference(table), byShape(table)].map((app) => request(app).search('/api/v1/presets/x')));
    expect(unknown.map((r) => [r.status, r.headers['allow']])).toEqual([
      [501, unknown[0]!.headers['allow']],
      [501, unknown[0]!.headers['allow']],
    ]);
  });

  it('runs two routes one request can match in turn, as @koa/router does', async () => {
    const router = new Router();
    const seen: string[] = [];
    router.get('/things/:id', async (ctx, next) => {
      seen.push(`id ${ctx.params.id}`);
      await next();
    });
    router.get('/things/special', (ctx) => {
      seen.push('special');
      ctx.body = 'special';
    });
    const res = await request(appWith(routesByShape(router) as Koa.Middleware)).get('/things/special');
    expect([res.status, res.text, seen]).toEqual([200, 'special', ['id special', 'special']]);
  });

  it('refuses a template without a fixed number of segments', () => {
    const router = new Router();
    router.get('/files/{*rest}', (ctx) => void (ctx.body = 'x'));
    expect(() => routesByShape(router)).toThrow(/no fixed number of segments/);
    const withUse = new Router();
    withUse.use('/files', async (_ctx, next) => next());
    withUse.get('/files/:name', (ctx) => void (ctx.body = 'x'));
    expect(() => routesByShape(withUse)).toThrow(/no fixed number of segments/);
  });

  it('refuses a router that matches hosts, routes another path or picks one of several matches', () => {
    for (const opts of [{ host: 'example.com' }, { routerPath: '/x' }, { exclusive: true }]) {
      const router = new Router(opts);
      router.get('/a', (ctx) => void (ctx.body = 'a'));
      expect(() => routesByShape(router)).toThrow(/not supported/);
    }
  });

  it('counts segments without a trailing slash', () => {
    expect([segments('/'), segments('/a'), segments('/a/'), segments('/a/b'), segments('/a//b/')]).toEqual([1, 1, 1, 2, 3]);
  });
});

describe('checkParams', () => {
  const router = () => {
    const r = new Router();
    r.get('/p/:slug/labels/:label', (ctx) => void (ctx.body = `${ctx.params.slug} ${ctx.params.label}`));
    r.get('/p/:slug', (ctx) => void (ctx.body = ctx.params.slug));
    r.get('/other/:id', (ctx) => void (ctx.body = ctx.params.id));
    return r;
  };
  const checked: string[] = [];
  const fail = (name: string) => (value: string, ctx: Koa.ParameterizedContext) => {
    checked.push(`${name}=${value}`);
    if (value.startsWith('bad')) ctx.throw(400, `bad ${name}`);
  };
  const app = (r: Router) => {
    checkParams(r, { slug: fail('slug'), label: fail('label') });
    return appWith(r.routes() as Koa.Middleware);
  };

  it('checks each named parameter before the route, in the order the path names them', async () => {
    checked.length = 0;
    const res = await request(app(router())).get('/p/s1/labels/l1');
    expect([res.status, res.text, checked]).toEqual([200, 's1 l1', ['slug=s1', 'label=l1']]);
  });

  it('stops at the first parameter that fails; a route without the parameter is not checked', async () => {
    checked.length = 0;
    const a = app(router());
    expect((await request(a).get('/p/bad-slug/labels/bad-label')).status).toBe(400);
    expect(checked).toEqual(['slug=bad-slug']);
    checked.length = 0;
    expect((await request(a).get('/other/bad')).text).toBe('bad');
    expect(checked).toEqual([]);
  });

  it('checks through routesByShape as through routes()', async () => {
    const r = router();
    checkParams(r, { slug: fail('slug') });
    const fast = appWith(routesByShape(r) as Koa.Middleware);
    expect((await request(fast).get('/p/bad')).status).toBe(400);
    expect((await request(fast).get('/p/good')).text).toBe('good');
  });
});
