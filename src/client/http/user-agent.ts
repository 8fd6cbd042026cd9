/**
 * What every request says it is: the program, its version and where it lives, so a provider's operator
 * who sees our traffic knows what it is and where to write ("tempmail-tui/0.1.0 (+https://...)").
 */
import { VERSION } from '../../platform/version';

/** The project's home, as its package is published. */
export const PROJECT_HOME = 'https://www.npmjs.com/package/tempmail-tui';

export const USER_AGENT = `tempmail-tui/${VERSION} (+${PROJECT_HOME})`;
