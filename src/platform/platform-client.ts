import { setMaxListeners } from 'node:events';
import type { Logger } from '../log/logger.js';
import { rootLogger } from '../log/logger.js';
import { platformConfigFromEnv, type PlatformConfig } from '../config/env-config.js';
import { ConfigError } from '../errors/evsync-error.js';
import { CheckInsApi } from './check-ins-api.js';
import { deriveKey } from './derive-key.js';
import { ContactsApi } from './contacts-api.js';
import { EventsApi } from './events-api.js';
import type { HttpTransportOptions } from './http-transport.js';
import { HttpTransport } from './http-transport.js';
import type { FlatParams } from '../model/params.js';
import type { PlatformCaller } from './platform-caller.js';
import { parseBody } from './platform-caller.js';
import type { HttpMethod, PlatformRequest, PlatformResponse, SendRequest } from './platform-request.js';
import type { RateLimiterOptions, RequestLimiter } from './rate-limiter.js';
import { RateLimiter } from './rate-limiter.js';
import { rateLimited } from './rate-limited.js';
import type { RetryPolicy } from './retry-policy.js';
import { DEFAULT_RETRY_POLICY, retrying } from './retry-policy.js';
import type { SignatureTestBody } from './response-schemas.js';
import { signatureTestSchema } from './response-schemas.js';
import { signedSender } from './signed-sender.js';
import { SpeakersApi } from './speakers-api.js';
import { UsersApi } from './users-api.js';
import { guardedWrites } from './write-guard.js';
import { observedCalls } from './observed-calls.js';
import { DEFAULT_VENDOR } from './vendor.js';

export interface PlatformClientOptions {
  /** e.g. `https://myconf.example.com`; paths are appended, no version segment. */
  baseUrl: string;
  keyId: number | string;
  signingKey: string;
  /**
   * The word the spec writes as `svc` in param names.
   * @defaultValue `'svc'`
   */
  vendor?: string;
  /**
   * The limiter, or its options. Pass one limiter to several clients to make them share
   * one budget (a `RateLimiter` in process, or one kept in Redis across processes).
   * @defaultValue `new RateLimiter()` (10 requests/s, 4 at a time)
   */
  rateLimit?: RequestLimiter | RateLimiterOptions;
  /** @defaultValue {@link DEFAULT_RETRY_POLICY} */
  retry?: Partial<RetryPolicy>;
  /** Keep-alive and timeouts of the HTTP layer. */
  http?: HttpTransportOptions;
  /** @defaultValue a child of the root logger with `{component: 'platform'}` */
  logger?: Logger;
  /**
   * Stops the client: calls waiting for the rate limiter or between retries fail at once
   * with `EVSYNC_PLATFORM_CLOSED` (nothing was sent); calls on the wire finish.
   */
  signal?: AbortSignal;
}

/** What `/signature_test` said about a signed request. */
export interface SignatureTestResult {
  status: number;
  /** The platform's verdict when the body states one, else `undefined`. */
  valid: boolean | undefined;
  /** The platform's expected signing string, when it shows one (it ends with the key: mask it). */
  expectedSigningString: string | undefined;
  /** Why the platform refused the signature, when it says. */
  problem: string | undefined;
  body: SignatureTestBody;
}

export interface SignatureTestInput {
  /** @defaultValue `'GET'` */
  method?: Extract<HttpMethod, 'GET' | 'POST' | 'PUT'>;
  query?: FlatParams;
  body?: FlatParams;
}

/**
 * The typed Event Platform API client: every endpoint of §4, grouped by resource. Each
 * call passes rate limit → retry → signing → HTTP; failures are typed `PlatformError`s.
 */
export class PlatformClient {
  readonly users: UsersApi;
  readonly events: EventsApi;
  readonly speakers: SpeakersApi;
  readonly contacts: ContactsApi;
  readonly checkIns: CheckInsApi;
  readonly vendor: string;
  /** The conference this client writes to, as configured (docs/design.md, "What the ledger knows"). */
  readonly baseUrl: string;
  readonly keyId: number;
  readonly limiter: RequestLimiter;
  private readonly transport: HttpTransport;
  private readonly pipeline: SendRequest;
  private readonly stop = new AbortController();
  readonly #signingKey: string;

  constructor(options: PlatformClientOptions) {
    if (!/^\d+$/.test(String(options.keyId))) {
      throw new ConfigError(`the key_id must be an integer, got "${String(options.keyId)}"`);
    }
    if (options.signingKey === '') throw new ConfigError('the signing key is empty');
    this.#signingKey = options.signingKey;
    this.baseUrl = options.baseUrl;
    this.keyId = Number(options.keyId);
    this.vendor = options.vendor ?? DEFAULT_VENDOR;
    const logger = (options.logger ?? rootLogger()).child({ component: 'platform' });
    this.limiter =
      options.rateLimit !== undefined && 'acquire' in options.rateLimit
        ? options.rateLimit
        : new RateLimiter(options.rateLimit);
    // One connection per request in flight, so the concurrency cap is the only queue.
    this.transport = new HttpTransport(options.baseUrl, {
      connections: Math.max(16, this.limiter.concurrency),
      ...options.http,
    });
    const signed = signedSender(this.transport, {
      keyId: options.keyId,
      signingKey: options.signingKey,
      logger,
    });
    const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    const signal = this.stop.signal;
    // Every waiting call listens on it; thousands may wait at once.
    setMaxListeners(0, signal);
    if (options.signal?.aborted) this.stop.abort(options.signal.reason);
    options.signal?.addEventListener('abort', () => this.stop.abort(options.signal?.reason), { once: true });
    // The write guard sits after the limiter: its check is the last thing before the send.
    this.pipeline = retrying(
      rateLimited(guardedWrites(observedCalls(signed)), this.limiter, { signal, logger }),
      policy,
      {
        logger,
        signal,
      },
    );
    const caller: PlatformCaller = { vendor: this.vendor, send: (request) => this.pipeline(request) };
    this.users = new UsersApi(caller);
    this.events = new EventsApi(caller);
    this.speakers = new SpeakersApi(caller);
    this.contacts = new ContactsApi(caller);
    this.checkIns = new CheckInsApi(caller);
  }

  /** A key for `purpose` derived from the signing key (see `derive-key.ts`), which stays here. */
  deriveKey(purpose: string): Buffer {
    return deriveKey(this.#signingKey, purpose);
  }

  /** A client for the platform configured in the environment (`EVSYNC_*`, `.env`). */
  static fromEnv(
    overrides: Omit<PlatformClientOptions, ConfigKeys> = {},
    env: NodeJS.ProcessEnv = process.env,
  ): PlatformClient {
    return PlatformClient.fromConfig(platformConfigFromEnv(env), overrides);
  }

  static fromConfig(config: PlatformConfig, overrides: Partial<PlatformClientOptions> = {}): PlatformClient {
    return new PlatformClient({
      baseUrl: config.baseUrl,
      keyId: config.keyId,
      signingKey: config.signingKey,
      vendor: config.vendor,
      ...overrides,
    });
  }

  /** `/signature_test` (§5): signs the given params and returns the platform's verdict. */
  async signatureTest(input: SignatureTestInput = {}): Promise<SignatureTestResult> {
    const method = input.method ?? 'GET';
    const request: PlatformRequest = {
      method,
      path: '/signature_test',
      query: input.query ?? {},
      ...(method === 'GET' ? {} : { body: input.body ?? {} }),
    };
    const response = await this.pipeline(request);
    const body = parseBody(request, response, signatureTestSchema);
    return {
      status: response.status,
      valid: body.valid ?? body.signature_valid ?? body.correct,
      expectedSigningString: body.expected_signing_string ?? body.signing_string,
      problem: body.problem ?? body.message ?? undefined,
      body,
    };
  }

  /**
   * A client with this one's key and rate budget for another base URL, trying each call
   * twice at most: what asks a URL the ledger does not know whether it answers as a
   * conference it knows (`sync/runs/conference-probe.ts`). Close it after use.
   */
  atBaseUrl(baseUrl: string): PlatformClient {
    return new PlatformClient({
      baseUrl,
      keyId: this.keyId,
      signingKey: this.#signingKey,
      vendor: this.vendor,
      rateLimit: this.limiter,
      retry: { maxAttempts: 2 },
    });
  }

  /** Any call through the whole pipeline, for endpoints the groups do not cover. */
  async request(request: PlatformRequest): Promise<PlatformResponse> {
    return this.pipeline(request);
  }

  /**
   * Fails calls still waiting (limiter, backoff) with `EVSYNC_PLATFORM_CLOSED`, lets calls on
   * the wire finish, then ends keep-alive connections. Later calls fail the same way.
   */
  async close(): Promise<void> {
    this.stop.abort(new Error('closed'));
    await this.transport.close();
  }
}

/** What `fromEnv` takes from the environment. */
export type ConfigKeys = 'baseUrl' | 'keyId' | 'signingKey' | 'vendor';
