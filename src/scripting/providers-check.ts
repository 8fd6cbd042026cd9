/**
 * `providers --check`: asks each provider of the order now, one cheap call each (MailProvider.probe),
 * in its turn under its rate (the shared pacing file) and without waiting out a 429, and says how it
 * went in words: ok, rate-limited, blocked, down, or not this kind of service, with the time it took.
 */
import { isApiError } from '../client/api-error';
import { orderedRefs, PROVIDER_INFO, type ProviderRef } from '../client/providers';
import { displayBaseUrl } from '../state/base-url';
import { safeLine } from '../text/safe-text';
import type { Context } from './context';

export type Verdict = 'ok' | 'rate-limited' | 'blocked' | 'down' | 'not this kind of service';

export interface CheckResult {
  name: string;
  label: string;
  baseUrl: string;
  verdict: Verdict;
  latencyMs: number;
  /** What the provider (or the network) said, when it is not ok. */
  detail?: string;
}

// A probe is one small request: a provider that takes longer than this is as good as down for a person.
const PROBE_TIMEOUT_MS = 5_000;
/** What one probe reads at most (an answer needs a few KB): past it the request ends and the provider fails. */
export const PROBE_MAX_BYTES = 64 * 1024;

/** The verdict on a failed probe. */
function verdictOf(error: unknown): Verdict {
  if (!isApiError(error)) return 'down';
  switch (error.kind) {
    case 'rate_limited':
      return 'rate-limited';
    case 'blocked':
      return 'blocked';
    case 'network':
    case 'timeout':
    case 'service':
      return 'down';
    default:
      // A 403 refuses this client as such; any other answer that is not the API's is another service.
      return error.details.status === 403 ? 'blocked' : 'not this kind of service';
  }
}

/** Probes every provider of the order at once (each on its own host); results in the order's order. */
export async function checkProviders(ctx: Context): Promise<CheckResult[]> {
  return Promise.all(orderedRefs(ctx.settings).map((ref) => checkOne(ctx, ref)));
}

async function checkOne(ctx: Context, ref: ProviderRef): Promise<CheckResult> {
  const info = PROVIDER_INFO[ref.provider];
  const base = { name: ref.provider, label: info.label, baseUrl: displayBaseUrl(ref.baseUrl) };
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  try {
    // No retries and no waiting out a 429: the check says what it met, now.
    const provider = ctx.provider(ref, {
      retries: 0,
      timeoutMs: PROBE_TIMEOUT_MS,
      rateLimitWait: undefined,
      maxResponseBytes: PROBE_MAX_BYTES,
    });
    await (provider.probe ? provider.probe() : provider.listDomains());
    return { ...base, verdict: 'ok', latencyMs: took() };
  } catch (error) {
    const detail = isApiError(error) ? safeLine(error.message, 200) : 'the check failed';
    return { ...base, verdict: verdictOf(error), latencyMs: took(), detail };
  }
}
