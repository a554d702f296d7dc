import type { FlatParams } from '../model/params.js';
import type { SandboxState } from './sandbox-state.js';
import type { SignatureCheck } from './verify-signature.js';
import { toXmlDocument } from './serialize/to-xml.js';
import type { WriteOperation } from './write-validation.js';

export type ResponseFormat = 'json' | 'xml' | 'atom';

/** One verified API request, as handlers see it. */
export interface SandboxRequest {
  method: string;
  path: string;
  /** The `{id}` segment of a member path, when the path has one. */
  pathId: string | undefined;
  /** Query and body params together (body wins), without `key_id`, `sig` and `format`. */
  params: FlatParams;
  format: ResponseFormat;
  /** `http://host:port` as the caller addressed the sandbox (for Atom links). */
  baseUrl: string;
  /** The verdict on the signature: only `/signature_test` ever sees an invalid one. */
  signature: SignatureCheck;
}

export interface Reply {
  status: number;
  contentType: string;
  body: string;
}

export interface HandlerContext {
  state: SandboxState;
  vendor: string;
  /** Throws a 422 naming every invalid param of the request for that operation. */
  validate: (operation: WriteOperation, request: SandboxRequest) => void;
  /** Records one applied create of `kind` for the counters ("nothing was created twice"). */
  countCreate: (kind: string, clientId: string | undefined) => void;
}

export type Handler = (request: SandboxRequest, context: HandlerContext) => Reply;

export function jsonReply(status: number, value: unknown): Reply {
  return { status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(value) };
}

export function emptyReply(status = 200): Reply {
  return { status, contentType: 'text/plain; charset=utf-8', body: '' };
}

export function xmlReply(status: number, xml: string, contentType = 'application/xml; charset=utf-8'): Reply {
  return { status, contentType, body: xml };
}

/** JSON, or XML under `root` when the request asked for `format=xml`. */
export function formatted(request: SandboxRequest, status: number, value: unknown, root: string): Reply {
  return request.format === 'xml' ? xmlReply(status, toXmlDocument(root, value)) : jsonReply(status, value);
}
