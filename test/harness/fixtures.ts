/** Paths of the test fixtures kept in the repo (copies of shared/fixtures, so a clean clone has them). */
import { fileURLToPath } from 'node:url';

/** Hostile sample messages: raw RFC 5322 with `{TO}` in place of the recipient. */
export const HOSTILE_DIR = fileURLToPath(new URL('../fixtures/hostile', import.meta.url));
