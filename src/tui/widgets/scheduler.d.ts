// React's scheduler (the one react-reconciler, and so Ink, runs renders and effects on) ships no types.
declare module 'scheduler' {
  export const unstable_IdlePriority: number;
  export function unstable_scheduleCallback(priority: number, callback: () => void): unknown;
}
