import type { Logger } from '../log/logger.js';
import type { HttpTransport } from './http-transport.js';
import type { Credentials } from './request-builder.js';
import { buildHttpRequest } from './request-builder.js';
import type { PlatformRequest, SendRequest } from './platform-request.js';
import { callSiteOf } from './platform-request.js';
import { classifyResponse } from './response-classifier.js';

export interface SignedSenderOptions extends Credentials {
  logger?: Logger;
}

/**
 * The bottom layer: sign, send once, classify. Logs method, path, status and duration at
 * debug level; never the query (it holds `sig`) nor the params (they may hold a password).
 */
export function signedSender(
  transport: Pick<HttpTransport, 'send'>,
  options: SignedSenderOptions,
): SendRequest {
  const credentials: Credentials = { keyId: options.keyId, signingKey: options.signingKey };
  const { logger } = options;
  return async (request: PlatformRequest) => {
    const site = callSiteOf(request);
    // Read per call (the level may change): a log line not written builds nothing.
    const started = logger?.isLevelEnabled('debug') ? performance.now() : undefined;
    const response = await transport.send(buildHttpRequest(request, credentials), site);
    if (started !== undefined) {
      logger?.debug(
        { ...site, status: response.status, ms: Math.round(performance.now() - started) },
        'platform call',
      );
    }
    return classifyResponse(response, site);
  };
}
