import { describe, expect, it } from 'vitest';
import { PlatformUnreachableError } from '../../platform/platform-error.js';
import type { SyncPlatform } from '../processors/sync-platform.js';
import { checkPlatform, needsPlatformCheck } from './platform-check.js';

const platformWith = (signatureTest: SyncPlatform['signatureTest']): SyncPlatform =>
  ({ vendor: 'svc', signatureTest }) as unknown as SyncPlatform;

describe('the check of the platform before a run completes', () => {
  it('is made when nothing the run sent proved the platform up', () => {
    expect(needsPlatformCheck({})).toBe(true);
    expect(needsPlatformCheck({ user: { unchanged: 74, skipped: 2, failed: 1 } })).toBe(true);
    expect(needsPlatformCheck({ user: { unchanged: 74, updated: 1 } })).toBe(false);
  });

  it('names an unreachable platform and a refused signature; passes an answer', async () => {
    const down = await checkPlatform(
      platformWith(() =>
        Promise.reject(
          new PlatformUnreachableError({ method: 'GET', path: '/signature_test' }, 'ECONNREFUSED'),
        ),
      ),
    );
    expect(down).toMatchObject({ code: 'EVSYNC_PLATFORM_UNREACHABLE' });
    expect(down!.reason).toContain('could not be reached for its check');
    const refused = await checkPlatform(
      platformWith(() => Promise.resolve({ valid: false, problem: 'Unknown key_id "7".' })),
    );
    expect(refused).toMatchObject({ code: 'EVSYNC_PLATFORM_UNAUTHORIZED' });
    expect(refused!.reason).toContain('refused the signature');
    expect(
      await checkPlatform(platformWith(() => Promise.resolve({ valid: true, problem: undefined }))),
    ).toBe(undefined);
    // A fake platform without the call is never checked.
    expect(await checkPlatform({ vendor: 'svc' } as unknown as SyncPlatform)).toBe(undefined);
  });
});
