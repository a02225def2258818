// Loaded first in every test process (package.json tap.node-arg). tap starts each test file with its
// processinfo and mock hooks (--import) and passes processinfo on to every child through NODE_OPTIONS;
// execa's execaNode hands children the parent's execArgv too. The project's tests start many node
// children (serve, agents, CLI runs), none of which use tap's mocks, and coverage is off: the hooks
// cost each child about 0.8 s of CPU at start, minutes over a CI run. Children start without them.
/** tap's hooks, and this module itself (given by a path relative to the project, which a child started
 *  elsewhere could not resolve). */
const TAP_HOOK = /@tapjs[\\/](processinfo|mock)[\\/]|no-tap-hooks-in-children/;

if (process.env['NODE_OPTIONS']) {
  const kept = process.env['NODE_OPTIONS'].split(/\s+/).filter((o) => o && !TAP_HOOK.test(o));
  if (kept.length) process.env['NODE_OPTIONS'] = kept.join(' ');
  else delete process.env['NODE_OPTIONS'];
}
// This process keeps its own hooks (already loaded); only what children inherit changes.
for (let i = process.execArgv.length - 1; i >= 0; i--) {
  const arg = process.execArgv[i]!;
  if (TAP_HOOK.test(arg)) {
    // `--import=<url>` or `--import <url>`.
    if (arg === '--import' || arg === '--loader') process.execArgv.splice(i, 2);
    else process.execArgv.splice(i, 1);
  } else if ((arg === '--import' || arg === '--loader') && TAP_HOOK.test(process.execArgv[i + 1] ?? '')) {
    process.execArgv.splice(i, 2);
  }
}

export {};
