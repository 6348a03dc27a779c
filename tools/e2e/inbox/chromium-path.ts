/** Where the browser tests launch Debian's Chromium; `.ci/run` makes sure it is there (ci-run.spec.ts). */
export const CHROMIUM = '/usr/bin/chromium';
