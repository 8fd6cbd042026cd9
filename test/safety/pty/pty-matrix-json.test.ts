/**
 * Terminal safety matrix in a real pty, the JSON `\u` path: the built app against a service whose JSON
 * carries every payload, in every field, as `\u` escapes. Shared suite: pty-suite.ts.
 */
import { ptyMatrixSuite } from './pty-suite';

ptyMatrixSuite('json');
