import { defineConfig } from 'vitest/config';

export default defineConfig({
  define: { __VERSION__: JSON.stringify('0.0.0-test') },
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Server, SMTP and pty tests each bind their own loopback ports; two workers fit the 2-core machine.
    maxWorkers: 2,
  },
});
