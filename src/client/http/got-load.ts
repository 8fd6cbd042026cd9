/**
 * got, loaded at the first request rather than with the client (the app draws its first frame without
 * it and the http2, TLS and cache code it brings), and the one mapping of what got throws outside its
 * own hooks into an ApiError built from scratch.
 */
import { ApiError } from '../api-error';
import { errorFromRequest } from './error-map';
import { badResponse } from '../wire/wire-json';

type GotModule = typeof import('got');
let gotLoading: Promise<GotModule> | undefined;
// Set once loaded: what the synchronous error mapping below needs to know got's errors by.
let gotLoaded: GotModule | undefined;

/** got, loaded once (a failed load is tried again at the next request). */
export function loadGot(): Promise<GotModule> {
  if (!gotLoading) {
    const attempt = import('got').then((module) => (gotLoaded = module));
    gotLoading = attempt;
    attempt.catch(() => {
      if (gotLoading === attempt) gotLoading = undefined;
    });
  }
  return gotLoading;
}

/** Loads the HTTP client's code ahead of the first request that needs it (a failure waits for that request). */
export function preloadHttp(): void {
  loadGot().catch(() => undefined);
}

// The reason a request is aborted with when its answer outgrows the cap.
export const OVERSIZE = Symbol('oversize');

// Errors that did not go through beforeError: an aborted oversized download, or a bug of ours.
export function toApiError(error: unknown, secrets: readonly string[], timeoutMs: number, maxBytes: number): ApiError {
  if (error instanceof ApiError) return error;
  if (error === OVERSIZE) {
    return badResponse(`answer larger than ${sizeWords(maxBytes)}`);
  }
  if (gotLoaded && error instanceof gotLoaded.RequestError) return errorFromRequest(error, secrets, timeoutMs);
  return new ApiError('network', 'The request failed');
}

/** "64 MiB", "64 KiB", "100 bytes": the bound of an answer in words. */
function sizeWords(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / 1024 / 1024} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
