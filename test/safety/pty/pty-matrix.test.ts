/**
 * Terminal safety matrix in a real pty, first half of the MIME mails (the built app against `serve`).
 * The suite and the plan are shared: pty-suite.ts, pty-plan.ts.
 */
import { ptyMatrixSuite } from './pty-suite';

ptyMatrixSuite('mime-a');
