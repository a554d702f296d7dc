import type { Context } from 'hono';

/** Pages answer HTML by default and JSON to `Accept: application/json` (docs/dashboard.md). */
export function wantsJson(c: Context): boolean {
  const accept = c.req.header('accept') ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}
