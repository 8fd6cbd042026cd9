/**
 * `npm run bench`: every performance goal of DESIGN.md ("Speed"), each reported as a ratio against a
 * baseline measured in the same run, so a slow or busy machine scales both sides. Needs `npm run build`.
 */
import { startTestService } from '../test/harness/service';
import { createApi } from '../src/client/tempmail/tempmail-client';
import { benchStartup, formatStartup } from './startup';
import { benchDelivery, formatDelivery } from './delivery';
import { benchHtml, formatHtmlBench } from './html';
import { benchKeypress, formatKeypress } from './keypress';
import { benchIdle, formatIdle } from './idle';

const lines: string[] = [];
const report = (line: string) => {
  lines.push(line);
  console.log(line);
};

const svc = await startTestService({ createPerMinute: 0 });
try {
  const api = createApi({ baseUrl: svc.baseUrl });
  const session = await api.createSession({});
  report(formatStartup(await benchStartup(svc.baseUrl, 'Random address on')));
  report(formatDelivery(await benchDelivery(svc, session.email)));
  report(formatHtmlBench(await benchHtml()));
  report(formatKeypress(await benchKeypress()));
  report(formatIdle(await benchIdle(svc.baseUrl, session.token)));
} finally {
  await svc.close();
}
