/** Commands other than running a node. Returns the exit code, or null when argv is not a subcommand. */
import { FLAG_SPECS } from '../server/flags.ts';
import { RUNNING_COMPILED } from '../runtime/running-compiled.ts';

export async function runSubcommand(argv: string[]): Promise<number | null> {
  const [cmd] = argv;
  if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
    const lines = Object.entries(FLAG_SPECS).map(([k, s]) => `  --${k.padEnd(32)} ${s.help} (default ${JSON.stringify(s.def)})`);
    process.stdout.write(`usage: tessera [flags]\n       tessera tsdb create-blocks-from openmetrics FILE [OUTPUT_DIR]\n\nflags:\n${lines.join('\n')}\n`);
    return 0;
  }
  // Imported only for the command: the block writer's graph (roaring, re2js…) would otherwise load at every start.
  if (cmd === 'tsdb') return (await import('./tsdb-import.ts')).runTsdbCli(argv.slice(1));
  if (cmd === '--version' || cmd === 'version') {
    process.stdout.write('tessera 0.1.0 (Elasticsearch 6.8.23 API, Prometheus 2.42 API)\n' +
      `running: ${RUNNING_COMPILED ? 'compiled dist/' : 'TypeScript sources (tsx)'}\n`);
    return 0;
  }
  return null;
}
