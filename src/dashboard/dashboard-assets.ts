import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Hono } from 'hono';
import { DASHBOARD_SCRIPT } from './assets/dashboard-script.js';
import { DASHBOARD_STYLE } from './assets/dashboard-style.js';

/** What the login page needs before anyone is logged in: the style sheet, which holds no data. */
export const PUBLIC_ASSETS = ['dashboard.css'] as const;

/**
 * `/assets/…`: the dashboard's script and style, and uPlot's, read from node_modules once
 * (no build step, nothing fetched from elsewhere). `only` serves those names alone; any
 * other path falls through to the next route.
 */
export function dashboardAssets(only?: readonly string[]): Hono {
  const require = createRequire(import.meta.url);
  const uplotDir = require.resolve('uplot').replace(/[\\/]dist[\\/][^\\/]+$/, '/dist');
  const files: Record<string, { type: string; body: string }> = {
    'dashboard.js': { type: 'text/javascript; charset=utf-8', body: DASHBOARD_SCRIPT },
    'dashboard.css': { type: 'text/css; charset=utf-8', body: DASHBOARD_STYLE },
    'uplot.min.js': {
      type: 'text/javascript; charset=utf-8',
      body: readFileSync(`${uplotDir}/uPlot.iife.min.js`, 'utf8'),
    },
    'uplot.min.css': {
      type: 'text/css; charset=utf-8',
      body: readFileSync(`${uplotDir}/uPlot.min.css`, 'utf8'),
    },
  };
  const assets = new Hono();
  for (const [name, file] of Object.entries(files)) {
    if (only && !only.includes(name)) continue;
    assets.get(`/${name}`, (c) => {
      c.header('Cache-Control', 'private, max-age=3600');
      return c.body(file.body, 200, { 'Content-Type': file.type });
    });
  }
  return assets;
}
