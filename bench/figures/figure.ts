/** What every figure module exports, and what the runner hands it. */

export interface RunContext {
  /** Small and fast: every key, few samples (CI runs this so the bench cannot rot). */
  quick: boolean;
  /** A progress line (stderr). */
  log(line: string): void;
  /** Undone after the figure, last first, even when it failed (stop a process, close a connection). */
  defer(undo: () => unknown): void;
}

export type Values = Record<string, number>;

export interface Figure {
  /** The name `--only` selects it by. */
  name: string;
  /** The keys this figure produces (it may add raw figures and baselines under other keys). */
  keys: readonly string[];
  run(ctx: RunContext): Promise<Values>;
}
