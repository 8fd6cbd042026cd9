/**
 * What every request says it is: the program, its version and where it lives, so a provider's operator
 * who sees our traffic knows what it is and where to write ("tempmail-tui/0.1.0 (+https://...)").
 */
declare const __VERSION__: string;

/** The project's home, as its package is published. */
export const PROJECT_HOME = 'https://www.npmjs.com/package/tempmail-tui';

// Set at build time (scripts/build-config.mjs) and by the test runner; a bare `tsx` run has none.
const version = typeof __VERSION__ === 'string' ? __VERSION__ : 'dev';

export const USER_AGENT = `tempmail-tui/${version} (+${PROJECT_HOME})`;
