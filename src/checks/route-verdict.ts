import { defineCheck, type CodeDeclaration } from './check.ts';
import type { HttpResult } from '../probes/results.ts';
import { settleNote } from './settle-note.ts';

/**
 * ` (after 2 redirects, answered by http://h:9/x; the token was not sent there: another origin)`: what
 * a message adds when the answer came from somewhere else than the URL probed.
 */
export function redirectNote(result: HttpResult | undefined): string {
  if (result?.kind !== 'response' || result.redirect === undefined) return '';
  const { count, to, tokenWithheld } = result.redirect;
  const withheld = tokenWithheld ? '; the token was not sent there, as it is another origin' : '';
  return ` (after ${count} redirect${count === 1 ? '' : 's'}, answered by ${to}${withheld})`;
}

/** The verdict of a HEAD to a controller-facing route, before it is given a route's codes. */
export type RouteVerdict = 'missing' | 'wired' | 'unexpected';

/**
 * Judges `HEAD <route>` without a token (upstream ): a mounted route answers 2xx, 401, 403 or
 * 405; 404 means it is not mounted; no answer means it could not be reached.
 */
export function judgeRoute(route: string, result: HttpResult): { verdict: RouteVerdict; message: string } {
  if (result.kind === 'build-error')
    return { verdict: 'missing', message: `the HEAD ${route} request could not be built: ${result.error}` };
  if (result.kind === 'transport-error') return { verdict: 'missing', message: `HEAD ${route} could not connect: ${result.error}` };
  const { status } = result;
  if (status === 404) {
    return {
      verdict: 'missing',
      message: `HEAD ${route} answered HTTP 404: the ${route} route is not mounted on the server (a mounted route answers 2xx, 401, 403 or 405)`,
    };
  }
  if ((status >= 200 && status <= 299) || status === 401 || status === 403 || status === 405) {
    return { verdict: 'wired', message: `the ${route} route is mounted (HTTP ${status} to a HEAD request, which changes nothing)` };
  }
  return {
    verdict: 'unexpected',
    message: `${route} is mounted but answered HEAD with HTTP ${status} (2xx, 401, 403 or 405 expected): the server or a middleware in front of it may be failing`,
  };
}

/**
 * Declares the check of one controller-facing route: PolicyReachability and ProbeReachability differ
 * only in the route, the probe result they judge and their codes.
 */
export function defineRouteCheck<const N extends string, C extends string>(
  name: N,
  route: '/policy' | '/probe',
  codes: { readonly [K in C]: CodeDeclaration },
  codeOf: Readonly<Record<RouteVerdict, C>>,
) {
  const field = route === '/policy' ? 'policy' : 'probe';
  return defineCheck({
    name,
    codes,
    reads: {},
    probes: { routes: 'required' },
    judge({ probes }, emit) {
      const { base, settling } = probes.routes;
      const result = probes.routes[field];
      const { verdict, message } = judgeRoute(route, result);
      const notes = `${redirectNote(result)}${settleNote(settling)}`;
      return [emit(codeOf[verdict], `${base}${route}`, `${message}${notes}`)];
    },
  });
}
