/** Runs every HTTP case file in test/es/cases against one real server (see yaml-runner.ts for the format). */
import { runCaseFiles } from './yaml-runner.ts';

runCaseFiles(new URL('./cases/', import.meta.url));
