/**
 * Terminal safety matrix in a real pty, second half of the MIME mails (the built app against `serve`).
 * A file of its own so that vitest runs it beside the first half. Shared suite: pty-suite.ts.
 */
import { ptyMatrixSuite } from './pty-suite';

ptyMatrixSuite('mime-b');
