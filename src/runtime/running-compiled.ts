/**
 * Whether this code runs as compiled by scripts/build.mjs (`dist/`, .js files) rather than from the
 * TypeScript sources through tsx: worker threads then need no loader.
 */
export const RUNNING_COMPILED = import.meta.url.endsWith('.js');
