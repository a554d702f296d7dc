import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };

describe('the Node.js version evsync needs', () => {
  it('is the same in `engines` and in the README', () => {
    const version = /^>=(\d+\.\d+\.\d+)$/.exec(manifest.engines.node)?.[1];
    expect(version).toBeDefined();
    expect(readFileSync('README.md', 'utf8')).toContain(`Node.js ≥ ${version}`);
  });
});
