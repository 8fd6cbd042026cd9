/**
 * The route of GET /events (the stream itself: events.ts). The token is checked like on every route
 * (unknown 401, expired 410, storage down 503) before anything is streamed, so a client hears why in
 * the usual JSON error; then the hub takes the answer over.
 */
import { HttpError, requireToken } from './params';
import type { Route } from './route-types';

export const eventsRoute: Route = {
  method: 'GET',
  async handle(service, { params, extras, clientAddress }) {
    const hub = extras.events;
    if (!hub) throw new HttpError(404, 'not_found', 'No such route');
    const token = requireToken(params);
    const session = await service.describeSession(token);
    const stream = { token, id: session.id, expiresAt: session.expiresAt.getTime(), client: clientAddress };
    return { kind: 'stream', open: (res) => hub.open(res, stream), headers: hub.headers() };
  },
};
