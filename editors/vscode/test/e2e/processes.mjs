// Finding the daemon processes a code-server instance started, from /proc (Linux).
import * as fs from 'node:fs';

function processGroup(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[2]);
}

/** PIDs in process group `pgid` running `bin ... serve`. */
export function daemonPids(pgid, bin) {
  return pidsMatching(pgid, (argv) => argv.includes('serve') && argv.some((a) => a === bin));
}

/** PIDs in process group `pgid` whose command line (argv) `match`es. */
export function pidsMatching(pgid, match) {
  const pids = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) {
      continue;
    }
    try {
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (match(argv) && processGroup(name) === pgid) {
        pids.push(Number(name));
      }
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/** Polls `get` until `ok(value)`; returns the value, or throws after `timeoutMs`. */
export async function waitFor(get, ok, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let value = get();
  while (!ok(value)) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
    value = get();
  }
  return value;
}
