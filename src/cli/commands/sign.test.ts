import { afterEach, describe, expect, it, vi } from 'vitest';
import { md5Hex } from '../../platform/signing.js';
import { main } from '../main.js';
import { describeSignature, withVendor } from './sign.js';

function captureStdout(): { text: () => string } {
  const chunks: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  return { text: () => chunks.join('') };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('evsync sign', () => {
  it('masks the key unless asked, and signs as §5 says', () => {
    const options = {
      keyId: '7',
      signingKey: 'TOPSECRET',
      vendor: 'svc',
      get: { format: 'json' },
      post: { 'user[first_name]': 'A&B' },
    };
    const masked = describeSignature(options);
    expect(masked.signingString).toBe('format=jsonkey_id=7user[first_name]=A&B<signing key>');
    expect(masked.sig).toBe(md5Hex('format=jsonkey_id=7user[first_name]=A&BTOPSECRET'));
    expect(masked.query).toBe(`format=json&key_id=7&sig=${masked.sig}`);
    expect(masked.body).toBe('user%5Bfirst_name%5D=A%26B');
    expect(describeSignature({ ...options, showKey: true }).signingString).toContain('TOPSECRET');
  });

  it('rewrites svc to the vendor word in auth attribute names only', () => {
    expect(withVendor({ 'user[svc_auth_attributes][email]': 'a@b.c', svc_note: 'x' }, 'zerista')).toEqual({
      'user[zerista_auth_attributes][email]': 'a@b.c',
      svc_note: 'x',
    });
  });

  it('runs from the command line, keeping = and blanks inside values', async () => {
    const out = captureStdout();
    const code = await main([
      'node',
      'evsync',
      'sign',
      '--key-id',
      '12',
      '--signing-key',
      'sekret',
      '--post',
      'q=a=b',
      '--post',
      'blank=',
      '--get',
      'format=json',
      '--json',
    ]);
    expect(code).toBe(0);
    const printed = JSON.parse(out.text()) as { signingString: string; sig: string };
    expect(printed.signingString).toBe('format=jsonkey_id=12q=a=b<signing key>');
    expect(printed.sig).toBe(md5Hex('format=jsonkey_id=12q=a=bsekret'));
    expect(out.text()).not.toContain('sekret');
  });

  it('refuses a bad key id or a param without =, with the usage exit code', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    captureStdout();
    expect(await main(['node', 'evsync', 'sign', '--key-id', 'x', '--signing-key', 'k'])).toBe(2);
    expect(
      await main(['node', 'evsync', 'sign', '--key-id', '1', '--signing-key', 'k', '--get', 'nope']),
    ).toBe(2);
  });
});
