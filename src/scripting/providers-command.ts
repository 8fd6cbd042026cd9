/**
 * `providers [--check] [--json]`: the providers this program speaks, their base URLs, and whether each
 * works offline; with --check, whether each answers now (providers-check.ts).
 */
import { PROVIDER_INFO } from '../client/providers';
import { PROVIDER_IDS } from '../model/mail-types';
import { displayBaseUrl } from '../state/base-url';
import { flag, parseCommandArgs } from './args';
import { configuredRef, makeContext } from './context';
import { json } from './script-format';
import { EXIT, type ScriptIo } from './io';
import { checkProviders } from './providers-check';

/** Lists the providers: "name<TAB>base URL<TAB>offline yes|no<TAB>note", the configured one marked in JSON. */
export async function runProviders(args: string[], io: ScriptIo): Promise<number> {
  const parsed = parseCommandArgs('providers', args);
  const ctx = makeContext(io, parsed);
  if (flag(parsed, 'check')) {
    const results = await checkProviders(ctx);
    const working = results.filter((r) => r.verdict === 'ok').length;
    if (flag(parsed, 'json')) io.stdout.write(json({ providers: results, working }));
    else
      io.stdout.write(
        results
          .map((r) => `${r.name}\t${r.baseUrl}\t${r.verdict}\t${r.latencyMs} ms${r.detail ? `\t${r.detail}` : ''}\n`)
          .join(''),
      );
    if (working === 0) ctx.info('No provider answers now: tempmail-tui serve runs a service of your own');
    // At least one works: a script can go on (with --provider auto, new finds it).
    return working > 0 ? EXIT.ok : EXIT.failed;
  }
  const configured = ctx.settings.provider === 'auto' ? undefined : configuredRef(ctx.settings);
  const rows = PROVIDER_IDS.map((id) => {
    const info = PROVIDER_INFO[id];
    const here = configured?.provider === id;
    return {
      name: id,
      label: info.label,
      // The configured provider at its configured URL; the others at their defaults.
      baseUrl: displayBaseUrl(here ? configured.baseUrl : info.defaultBaseUrl),
      defaultBaseUrl: info.defaultBaseUrl,
      offline: info.offline,
      configured: here,
      lifetimeMinutes: info.limits.lifetimeMinutes,
      requestsPerSecond: info.limits.requestsPerSecond,
      customNames: info.limits.customNames,
      publicInbox: info.limits.publicInbox,
      deletesAddress: info.deleteAddress !== undefined,
      note: info.note,
    };
  });
  if (flag(parsed, 'json')) {
    io.stdout.write(json({ providers: rows }));
  } else {
    io.stdout.write(
      rows.map((r) => `${r.name}\t${r.baseUrl}\toffline ${r.offline ? 'yes' : 'no'}\t${r.label}: ${r.note}\n`).join(''),
    );
    if (!configured)
      ctx.info('None configured: the app runs its own local service (offline); scripts need --provider or --base-url.');
  }
  return EXIT.ok;
}
