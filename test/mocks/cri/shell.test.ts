// The simulated shell's variables and loops, as the CRI validator's and users' scripts write them
// (`i=0; while [ $i -lt 3 ]; do ...; i=$((i+1)); done`, `for x in ...`): ExecSync's interpreter in-process.
import t from 'tap';
import { execSync } from '../../../mocks/cri/process.js';

async function sh(script: string, env: Record<string, string> = {}) {
  const r = await execSync(['sh', '-c', script], { hostname: 'pod-a', env, workingDir: '/', files: new Map() }, new AbortController().signal);
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

t.test('NAME=value sets a shell variable; $((...)) reads it', async (t) => {
  t.same(await sh('i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done'), { code: 0, out: '0\n1\n2\n', err: '' });
  t.same(await sh('MSG="hi there"; echo "$MSG"'), { code: 0, out: 'hi there\n', err: '' }, 'a quoted value stays whole');
  t.same(await sh('x=$(false); echo $?'), { code: 0, out: '1\n', err: '' }, 'an assignment takes the status of its command substitution');
  t.same(await sh('echo a=b'), { code: 0, out: 'a=b\n', err: '' }, 'after the command name, NAME=value is an argument');
  t.same(await sh("'A'=1"), { code: 127, out: '', err: 'sh: A=1: not found\n' }, 'a quoted name is no assignment');
});

t.test('NAME=value before a command is that command\'s environment only', async (t) => {
  t.same(await sh('A=local printenv A; echo $A', { A: 'env' }), { code: 0, out: 'local\nenv\n', err: '' });
  t.same(await sh('B=1; printenv B'), { code: 1, out: '', err: '' }, 'a shell variable is not exported');
});

t.test('for loops: words, quoted words whole, unquoted expansions split', async (t) => {
  t.same(await sh('for x in a b "c d"; do echo "[$x]"; done'), { code: 0, out: '[a]\n[b]\n[c d]\n', err: '' });
  t.same(await sh('for n in $(echo 1 2 3); do echo $((n*2)); done'), { code: 0, out: '2\n4\n6\n', err: '' });
  t.same(await sh('for i in; do echo no; done; echo end'), { code: 0, out: 'end\n', err: '' }, 'an empty list runs nothing');
  t.same(await sh('for 1x in a; do echo; done').then((r) => r.code), 2, 'a bad name is a syntax error');
});
