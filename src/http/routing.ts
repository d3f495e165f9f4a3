import Router from '@koa/router';
import type Koa from 'koa';
import compose from 'koa-compose';

/**
 * Two ways of giving @koa/router's routes to Koa that cost a request less than `routes()` over one
 * router and `router.param`, with the same answers. The measurements are in docs/performance.md.
 */

/**
 * A router's routes, found by the number of segments of the request's path, then run through a
 * chain composed once.
 *
 * @koa/router's `routes()` tests a request's path against every route it holds, one regular
 * expression each (49 for the API), then composes the matched route's middleware anew for that
 * request (koa-compose flattens the array, checks each function and makes the dispatcher) and
 * reads the Host header to match hosts. Here the routes are split once into groups by their
 * number of segments: a path of n segments can only match a template of n segments (these
 * templates have no wildcards and no optional parts, and a parameter never spans a `/`), and
 * each route's middleware is composed once. A request counts its path's slashes, tests the routes
 * of its group in the order they were registered with the route's own regular expression (the
 * same case-insensitive, trailing-slash-tolerant match), sets what @koa/router sets for a route
 * (`params` decoded as it decodes them, `captures`, `_matchedRoute`, `routerPath`) and runs the
 * route. A request no route answers for its method (404, 405 with `Allow`, OPTIONS, 501) goes
 * through @koa/router's own `routes()` and `allowedMethods()` over its group, which answer as the
 * whole router does; so does every request of a group in which two routes of one method could
 * match one path (there @koa/router runs them in turn, which a single chain would not).
 * Call it once every route is registered and checked.
 */
export const routesByShape = <S, C>(router: Router<S, C>): Koa.Middleware<S, C> => {
  // What the dispatch below does not do: match hosts, route another path than ctx.path, or pick one of several matches.
  if (router.opts.host !== undefined || router.opts.routerPath !== undefined || router.opts.exclusive) {
    throw new Error('routesByShape: a router with host, routerPath or exclusive is not supported');
  }
  const groups = new Map<number, Layer<S, C>[]>();
  for (const layer of router.stack) {
    const template = layer.path;
    // `router.use` middleware (no methods) matches every path under its own: no fixed length either.
    if (typeof template !== 'string' || !isFixedShape(template) || layer.methods.length === 0 || layer.opts.end === false) {
      throw new Error(`routesByShape: ${String(template)} has no fixed number of segments`);
    }
    const n = segments(template);
    groups.set(n, [...(groups.get(n) ?? []), layer]);
  }
  const byCount = new Map([...groups].map(([n, layers]) => [n, group(layers, router.methods)]));
  const none = group<S, C>([], router.methods);
  return (ctx, next) => (byCount.get(segments(ctx.path)) ?? none)(ctx, next);
};

type Layer<S, C> = Router<S, C>['stack'][number];
type Routed = { params: Record<string, string>; captures: string[]; routerPath: string; _matchedRoute: string };

/** A router as @koa/router gives it to Koa: its `routes()`, then its `allowedMethods()` (404, 405 with `Allow`, OPTIONS, 501). */
export const routerMiddleware = <S, C>(router: Router<S, C>): Koa.Middleware<S, C> => {
  // (Typed as plain Koa middleware: the router's own type asks for the context fields it sets itself.)
  const routes = router.routes() as unknown as Koa.Middleware<S, C>;
  const allowed = router.allowedMethods() as unknown as Koa.Middleware<S, C>;
  return (ctx, next) => routes(ctx, () => allowed(ctx, next));
};

/** One group's dispatch: its routes, each composed once, with @koa/router's own dispatch behind them. */
const group = <S, C>(layers: Layer<S, C>[], methods: string[]): Koa.Middleware<S, C> => {
  const part = new Router<S, C>({ methods });
  part.stack.push(...layers);
  const fallback = routerMiddleware(part);
  if (layers.some((a, i) => layers.slice(i + 1).some((b) => mayShareRequests(a, b)))) return fallback;
  const table = layers.map((layer) => ({
    layer,
    template: layer.path as string,
    methods: new Set(layer.methods),
    run: compose(layer.stack as unknown as Koa.Middleware<S, C>[]),
  }));
  return (ctx, next) => {
    const path = ctx.path;
    for (const { layer, template, methods, run } of table) {
      if (!methods.has(ctx.method) || !layer.regexp.test(path)) continue;
      const routed = ctx as unknown as Routed & { request: { params: Record<string, string> } };
      routed.captures = layer.captures(path);
      routed.params = routed.request.params = layer.params(path, routed.captures, routed.params);
      routed.routerPath = routed._matchedRoute = template;
      return run(ctx, next);
    }
    return fallback(ctx, next);
  };
};

/** Could one request (a path and a method) match both routes? Only if they share a method and no segment tells them apart. */
const mayShareRequests = <S, C>(a: Layer<S, C>, b: Layer<S, C>): boolean => {
  if (!a.methods.some((m) => b.methods.includes(m))) return false;
  const [sa, sb] = [(a.path as string).split('/'), (b.path as string).split('/')];
  return sa.every((x, i) => x.startsWith(':') || sb[i]!.startsWith(':') || x.toLowerCase() === sb[i]!.toLowerCase());
};

/** `/api/v1/presets/x` → 4; a trailing slash does not count (routes are not strict about it). */
export const segments = (path: string): number => {
  const end = path.length > 1 && path.endsWith('/') ? path.length - 1 : path.length;
  let n = 0;
  for (let i = 0; i < end; i++) if (path.charCodeAt(i) === 0x2f) n++;
  return n;
};

/** A template of plain segments and `:name` parameters: no wildcard (`*`), no optional part (`{}`), no regexp. */
const isFixedShape = (template: string): boolean => template.startsWith('/') && !/[*{}()?+]/.test(template);

/** Throws (an ApiError) when a route parameter's value is not acceptable. */
export type ParamCheck<S, C> = (value: string, ctx: Koa.ParameterizedContext<S, C>) => void;

/**
 * Checks route parameters before a route's own middleware, on every route that names them, in
 * the order the path names them: what `router.param` does, without the WeakMap `router.param`
 * makes on every request (to run a handler once when several matched routes share it; a request
 * here runs one route). Call it once every route is registered.
 */
export const checkParams = <S, C>(router: Router<S, C>, checks: Record<string, ParamCheck<S, C>>): void => {
  for (const layer of router.stack) {
    const own = layer.paramNames.filter((key) => Object.hasOwn(checks, key.name));
    if (own.length === 0) continue;
    const checking: Koa.Middleware<S, C & { params: Record<string, string> }> = (ctx, next) => {
      for (const key of own) checks[key.name]!(ctx.params[key.name]!, ctx);
      return next();
    };
    layer.stack.unshift(checking as never);
  }
};
