// The one function of react-reconciler that root-widths.ts calls (the package ships no types): it makes
// a reconciler from a host config, which only Ink's code reads.
declare module 'react-reconciler' {
  export default function createReconciler(config: object): unknown;
}
