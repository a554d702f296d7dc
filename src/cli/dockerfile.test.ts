import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// No Docker engine runs here: the image is not built. What can be read is checked: the
// stages, the user, the health check, and that every file the build copies exists.
const text = readFileSync('Dockerfile', 'utf8').replace(/\\\n\s*/g, ' ');
const instructions = text
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'))
  .map((line) => {
    const [keyword = '', ...rest] = line.split(/\s+/);
    return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
  });
const stages = instructions.filter((i) => i.keyword === 'FROM');
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };

describe('Dockerfile', () => {
  it('builds in one stage and runs in another, on a Node that `engines` accepts', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages[0]!.args).toMatch(/ AS build$/);
    const minimum = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(manifest.engines.node)!.slice(1).map(Number);
    for (const stage of stages) {
      const [major, minor] = /^node:(\d+)\.(\d+)/.exec(stage.args)!.slice(1).map(Number);
      expect(major! > minimum[0]! || (major === minimum[0] && minor! > minimum[1]!), stage.args).toBe(true);
    }
  });

  it('installs the packed package in the runtime stage, not the source', () => {
    const runtime = instructions.slice(instructions.indexOf(stages.at(-1)!));
    const copies = runtime.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(copies).toEqual(['--from=build /pkg/evsync.tgz /tmp/evsync.tgz']);
    expect(runtime.find((i) => i.keyword === 'RUN')?.args).toMatch(/npm install --global --omit=dev/);
    expect(runtime.find((i) => i.keyword === 'ENTRYPOINT')?.args).toBe('["evsync"]');
  });

  it('runs as a user that is not root, with a health check', () => {
    const users = instructions.filter((i) => i.keyword === 'USER').map((i) => i.args);
    expect(users.at(-1)).toBe('node');
    const health = instructions.find((i) => i.keyword === 'HEALTHCHECK');
    expect(health?.args).toContain('/readyz');
  });

  it('copies into the build only files that exist', () => {
    const build = instructions.slice(0, instructions.indexOf(stages[1]!));
    for (const copy of build.filter((i) => i.keyword === 'COPY')) {
      const paths = copy.args.split(/\s+/).filter((arg) => !arg.startsWith('--'));
      for (const path of paths.slice(0, -1)) expect(existsSync(path), path).toBe(true);
    }
  });
});
