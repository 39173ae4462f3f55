import { describe, expect, it } from 'vitest';
import { COMMANDS } from './commands.js';
import { complete, completionScript, FILES, formatCandidates, SHELLS, type Candidate, type CompletionSources } from './completion.js';

/** Sources that say which profile each daemon-backed question was about. */
function sources(asked: string[] = []): CompletionSources {
  const of = (what: string, values: string[]) => (profile: string): Promise<Candidate[]> => {
    asked.push(`${what}@${profile}`);
    return Promise.resolve(values.map((value) => ({ value, about: `${what} ${value}` })));
  };
  return {
    profiles: () => Promise.resolve([{ value: 'default' }, { value: 'work' }]),
    sessions: of('session', ['sess-aaaa000000000001', 'sess-bbbb000000000002']),
    tools: of('tool', ['click', 'close_page', 'take_snapshot']),
    pages: of('page', ['1', '2']),
    requests: (profile, kind) => of(`request-${kind}`, kind === 'question' ? ['q-1'] : ['c-1'])(profile),
  };
}

async function values(words: string[], from = sources()): Promise<string[] | typeof FILES> {
  const found = await complete(words, COMMANDS, from);
  return found === FILES ? FILES : found.map((candidate) => candidate.value);
}

describe('complete', () => {
  it('completes groups and one-word commands first, then the commands of a group', async () => {
    const first = await values(['']);
    expect(first).toEqual(expect.arrayContaining(['daemon', 'session', 'mcp', 'pages', 'log', 'doctor', 'completion', 'help']));
    expect(first).not.toContain('create');
    expect(await values(['se'])).toEqual(['session']);
    expect(await values(['session', ''])).toEqual(['create', 'list', 'close', 'page', 'attach', 'new-page', 'release', 'pause', 'resume']);
    expect(await values(['session', 'c'])).toEqual(['create', 'close']);
    expect(await values(['--profile', 'work', 'mcp', 'c'])).toEqual(['call']);
    expect(await values(['help', 'pro'])).toEqual(['profile']);
  });

  it("completes a command's options, the shared ones included, and leaves out those already given", async () => {
    const options = await values(['mcp', 'call', '--session', 'sess-aaaa000000000001', '--']);
    expect(options).toEqual(expect.arrayContaining(['--profile', '--json', '--new-session', '--images']));
    expect(options).not.toContain('--session');
    expect(await values(['log', '--tool', 'click', '--t'])).toEqual(['--tool']);
    expect(await values(['profile', 'remove', '--d'])).toEqual(['--delete-data']);
  });

  it("completes option values from the profile's daemon, asked for the profile the line names", async () => {
    const asked: string[] = [];
    expect(await values(['mcp', 'call', '--session', ''], sources(asked))).toEqual(['sess-aaaa000000000001', 'sess-bbbb000000000002']);
    expect(await values(['-p', 'work', 'session', 'close', '--session', 'sess-b'], sources(asked))).toEqual(['sess-bbbb000000000002']);
    expect(await values(['session', 'attach', '--profile=work', '--page', ''], sources(asked))).toEqual(['1', '2']);
    expect(await values(['log', '--tool', 'c'], sources(asked))).toEqual(['click', 'close_page']);
    expect(asked).toEqual(['session@default', 'session@work', 'page@work', 'tool@default']);
    expect(await values(['daemon', 'stop', '--profile', 'w'])).toEqual(['work']);
  });

  it('completes the values an option knows, and leaves a path to the shell', async () => {
    expect(await values(['log', '--outcome', 't'])).toEqual(['tool_error', 'timed_out']);
    expect(await values(['policy', 'add', '--action', ''])).toEqual(['confirm', 'deny', 'allow']);
    expect(await values(['profile', 'add', 'x', '--isolation', ''])).toEqual(['tab', 'window']);
    expect(await values(['log', '--export', ''])).toEqual(['html', 'json']);
    expect(await values(['mcp', 'batch', '--session', 's', '--script', ''])).toBe(FILES);
    expect(await values(['mcp', 'call', '--images', 'sh'])).toBe(FILES);
    expect(await values(['daemon', 'start', '--chrome', '/usr/'])).toBe(FILES);
    // A value nothing can suggest (a label) gets no candidates, not a path.
    expect(await values(['session', 'create', '--label', ''])).toEqual([]);
  });

  it('completes the arguments a command takes where they can be known', async () => {
    expect(await values(['mcp', 'call', '--session', 'sess-aaaa000000000001', 't'])).toEqual(['take_snapshot']);
    expect(await values(['mcp', 'call', '--session', 'sess-aaaa000000000001', 'click', ''])).toEqual([]);
    expect(await values(['profile', 'remove', ''])).toEqual(['default', 'work']);
    expect(await values(['answer', ''])).toEqual(['q-1']);
    expect(await values(['approve', ''])).toEqual(['c-1']);
    expect(await values(['deny', ''])).toEqual(['c-1']);
    expect(await values(['completion', ''])).toEqual([...SHELLS]);
    expect(await values(['pages', ''])).toEqual([]);
    expect(await values(['nonsense', ''])).toEqual([]);
  });
});

describe('formatCandidates', () => {
  it('prints a candidate a line, its description after a tab, with terminal controls escaped and on one line', () => {
    expect(formatCandidates([{ value: 'a' }, { value: 'b', about: 'the\tsecond\none' }])).toBe('a\nb\tthe second one');
    expect(formatCandidates([{ value: 'sess-1', about: 'title \u001b]0;owned\u0007 \u202e' }])).toBe('sess-1\ttitle \\u001b]0;owned\\u0007 \\u202e');
    expect(formatCandidates([{ value: 'x', about: 'y'.repeat(200) }]).length).toBeLessThan(90);
    expect(formatCandidates(FILES)).toBe(FILES);
  });
});

describe('completionScript', () => {
  it('gives each shell a script that asks tabmux __complete and hands paths to the shell', () => {
    for (const shell of SHELLS) {
      const script = completionScript(shell);
      expect(script, shell).toContain('tabmux __complete --');
      expect(script, shell).toContain(FILES);
    }
    expect(completionScript('bash')).toContain('complete -F _tabmux tabmux');
    expect(completionScript('zsh')).toContain('compdef _tabmux tabmux');
    expect(completionScript('fish')).toContain("complete -c tabmux -f -a '(__tabmux_complete)'");
  });
});
