/** Runs every search HTTP case file in test/search/cases against one real server (format: test/es/yaml-runner.ts). */
import { runCaseFiles } from '../es/yaml-runner.ts';

runCaseFiles(new URL('./cases/', import.meta.url));
