/**
 * What Ink gets for `react-reconciler` (scripts/build-config.mjs, vitest.config.ts: only for Ink's own
 * import): React's reconciler, with Ink's host config but for one thing. Every render of a root begins
 * by asking the host config for the root's context; here that also enters the root's terminal widths
 * (text/active-widths.ts), so that the app's components, Ink's layout and the frame it writes measure
 * text for that root's terminal, whichever app's event, timer or effect made it render. A root's
 * widths are those active when it first renders: Ink's render() called inside withWidths.
 */
import createReconciler from 'react-reconciler';
import { activeWidths, enterWidths, type TerminalWidths } from '../../text/active-widths';

interface HostConfig {
  getRootHostContext(root: object): unknown;
}

const roots = new WeakMap<object, TerminalWidths>();

/** The widths `root` (an Ink root node) renders in. */
export function rootWidths(root: object): TerminalWidths | undefined {
  return roots.get(root);
}

export default function createWidthsReconciler(config: HostConfig): unknown {
  return createReconciler({
    ...config,
    getRootHostContext(root: object) {
      let widths = roots.get(root);
      if (widths === undefined) {
        widths = activeWidths();
        roots.set(root, widths);
      }
      enterWidths(widths);
      return config.getRootHostContext(root);
    },
  });
}
