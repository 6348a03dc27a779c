import type { Express, RequestHandler } from 'express';
import { HttpError } from '@bedrequest/http';
import { answerError, quotedPath } from './http-errors';

/**
 * The parts of express's router (express 5, `router` 2.x) read here: each layer of a stack matches
 * a path with `match` (the same matcher express routes with) and is either a route, with the
 * methods it was declared for, or a mounted router, with its own stack, or other middleware.
 */
interface RouterLayer {
  match(path: string): { path: string } | false;
  route?: { methods: Record<string, boolean | undefined> };
  handle: { stack?: readonly RouterLayer[] };
}

/** A route declared with `.all()` takes every method. */
type Methods = Set<string> | 'any';

/**
 * Reading the methods of a path walks every router (about 15 µs for the gateway's); what a path
 * takes is kept for the next request to it (the bundle endpoint, the Task search): paths of at
 * most 256 characters, at most 1000 of them, all forgotten when full (paths with ids come and go).
 * The routes are complete once the app serves, so nothing kept goes stale.
 */
const MAX_KNOWN_PATHS = 1000;
const MAX_KNOWN_PATH_LENGTH = 256;

/**
 * RFC 9110 §15.5.6: a path that exists, asked with a method it does not take, is 405 with `Allow`
 * listing the methods it takes (an OperationOutcome on FHIR paths, `method_not_allowed` on
 * /api/v1); OPTIONS on such a path is 204 with the same `Allow`. The methods are read from the
 * app's own routers when a path is first asked for, so every route counts, routers mounted after
 * this middleware included, and no second list can drift from them. Mounted before the token
 * guards: which methods a path takes is public (the OpenAPI document lists them), and the answer
 * says nothing of its data. A path no route matches goes on, to the 404 at the end.
 */
export function allowedMethods(app: Express): RequestHandler {
  const known = new Map<string, Methods>();
  const methodsOf = (path: string): Methods => {
    let methods = known.get(path);
    if (methods) return methods;
    methods = methodsAt(app.router.stack as unknown as readonly RouterLayer[], path);
    if (path.length > MAX_KNOWN_PATH_LENGTH) return methods;
    if (known.size >= MAX_KNOWN_PATHS) known.clear();
    known.set(path, methods);
    return methods;
  };
  return (req, res, next) => {
    const methods = methodsOf(req.path);
    if (methods === 'any' || methods.size === 0) return next();
    if (req.method !== 'OPTIONS' && takes(methods, req.method)) return next();
    const allow = allowHeader(methods);
    res.setHeader('Allow', allow);
    if (req.method === 'OPTIONS') return void res.status(204).end();
    answerError(req, res, new HttpError('method_not_allowed', `${req.method} is not allowed on ${quotedPath(req)}; it takes ${allow}`));
  };
}

/** HEAD is answered wherever GET is (express runs the GET route without sending its body). */
function takes(methods: Set<string>, method: string): boolean {
  return methods.has(method) || (method === 'HEAD' && methods.has('GET'));
}

function allowHeader(methods: Set<string>): string {
  const allowed = new Set([...methods, 'OPTIONS']);
  if (allowed.has('GET')) allowed.add('HEAD');
  return [...allowed].sort().join(', ');
}

/** The methods of every route `path` reaches in `stack`, through the routers mounted on its prefixes. */
function methodsAt(stack: readonly RouterLayer[], path: string, methods = new Set<string>()): Methods {
  for (const layer of stack) {
    const { route } = layer;
    const router = layer.handle.stack;
    if (!route && !router) continue;
    const match = matchOf(layer, path);
    if (!match) continue;
    if (route) {
      if (route.methods._all) return 'any';
      for (const [method, declared] of Object.entries(route.methods)) if (declared) methods.add(method.toUpperCase());
    } else if (router) {
      // As express does: a router mounted at a prefix sees the rest of the path, from a "/".
      const rest = path.slice(match.path.length);
      if (rest !== '' && !rest.startsWith('/')) continue;
      if (methodsAt(router, rest || '/', methods) === 'any') return 'any';
    }
  }
  return methods;
}

/** A path express cannot decode (a stray `%`) matches nothing here; express answers it itself. */
function matchOf(layer: RouterLayer, path: string): { path: string } | false {
  try {
    return layer.match(path);
  } catch {
    return false;
  }
}
