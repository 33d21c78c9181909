#!/usr/bin/env python3
"""Bracket the upstream commit each vLLM release was cut from, by its logs' line tags.

A vLLM log line names the file and line of its logging call ("[gpu_worker.py:436]
Available KV cache memory: ..."). A first-parent commit of TIP is consistent with a
tag when some file of that basename holds, at that line, a logging call whose
leading string literals (placeholders as wildcards) match the message. A release is
cut from main and may carry cherry-picks, so the bracket is the run of commits that
holds the most of its logs' tags; the tags no commit holds are listed (moved by a
cherry-pick, or a build that is not upstream's).

usage: pin_release.py GITDIR TIP [CORPUS_DIR] [VERSION=LOG ...]

GITDIR is a git directory with upstream's history (no work tree needed), TIP the
commit to walk back from. Without VERSION=LOG arguments it reads every
planner/testdata/engines/corpus/vllm entry whose version the log or its thread
states; PER_LOG=1 brackets each log on its own. Prints one line per version:
the tags held at the bracket of all the tags held anywhere (and of all), the run of
commits that holds them, its first and last commit and their dates (UTC), and the
tags held nowhere; a version whose logs are mostly held nowhere is said to be out of
this history (a release after TIP, or a log without upstream's line numbers).
docs/architecture.md, "Engine releases", has the table this prints.
"""
import collections, datetime, glob, json, os, re, subprocess, sys

TAG = re.compile(r'\[([A-Za-z0-9_]+\.py):(\d+)\] ?(.*)$')
CALL = re.compile(r'\b(?:logger|_logger|log|lgr|LOGGER|self\.logger|logging)\.'
                  r'(?:info|warning|warn|debug|error|exception|critical)(?:_once)?\s*\('
                  r'|\bprint_(?:info|warning)_once\s*\(')
STR = re.compile(r'''(?i)(?<![A-Za-z0-9_])([rfbu]{0,2})("""|\'\'\'|"|')((?:\\.|(?!\2).)*?)\2''', re.S)
PH = re.compile(r'%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdifrxXgGeE]|\{[^{}]*\}')


class Repo:
    def __init__(self, gitdir, tip):
        self.gitdir = gitdir
        out = self.git('log', '--first-parent', '--format=C %H %ct', '--name-only', tip).decode()
        self.order, self.changes, cur = [], collections.defaultdict(list), None
        for ln in out.splitlines():
            if ln.startswith('C '):
                _, cur, t = ln.split()
                self.order.append((cur, int(t)))
            elif ln:
                self.changes[ln].append(cur)
        self.order.reverse()  # oldest first
        self.idx = {h: i for i, (h, _) in enumerate(self.order)}
        self.bybase = collections.defaultdict(list)
        for p in self.changes:
            self.bybase[os.path.basename(p)].append(p)
        self.cat = subprocess.Popen(['git', '--git-dir', gitdir, 'cat-file', '--batch'],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.blobs = {}

    def git(self, *a):
        return subprocess.run(['git', '--git-dir', self.gitdir, *a], capture_output=True, check=True).stdout

    def lines(self, rev, path):
        if (rev, path) not in self.blobs:
            self.cat.stdin.write(f'{rev}:{path}\n'.encode())
            self.cat.stdin.flush()
            hdr = self.cat.stdout.readline().split()
            text = None
            if hdr[1] != b'missing':
                text = self.cat.stdout.read(int(hdr[2])).decode('utf-8', 'replace').split('\n')
                self.cat.stdout.read(1)
            self.blobs[rev, path] = text
        return self.blobs[rev, path]

    def holds(self, base, line, msg):
        """The commits (as a bytearray over order) where the tag holds."""
        ok = bytearray(len(self.order))
        for p in self.bybase.get(base, []):
            ch = sorted(self.idx[h] for h in self.changes[p])
            for j, c in enumerate(ch):
                end = ch[j + 1] if j + 1 < len(ch) else len(ok)
                text = self.lines(self.order[c][0], p)
                if text and matches(text, line, msg):
                    ok[c:end] = b'\1' * (end - c)
        return ok


def matches(text, line, msg):
    if line < 1 or line > len(text) or not CALL.search(text[line - 1]):
        return False
    call, depth = '', 0
    for s in text[line - 1:line + 15]:
        call += s + '\n'
        depth += s.count('(') - s.count(')')
        if depth <= 0:
            break
    rest, lits = call[CALL.search(call).end():].lstrip().lstrip('(').lstrip(), ''
    while (m := STR.match(rest)):
        lits += m.group(3)
        rest = re.sub(r'^(\s|#[^\n]*)*', '', rest[m.end():])
    lits = lits.replace('\\n', ' ').replace("\\'", "'").replace('\\"', '"').replace('%%', '%')
    pieces = [p.strip() for p in PH.split(lits) if p.strip()]
    if not pieces:
        return True  # the message is a variable: the call's place decides
    if re.search('.*?'.join(map(re.escape, pieces)), msg, re.S):
        return True
    return len(msg) >= 4 and pieces[0].startswith(msg)  # a message the corpus cut short


def corpus_logs(root):
    out = collections.defaultdict(list)
    for j in sorted(glob.glob(os.path.join(root, 'planner/testdata/engines/corpus/vllm/*.json'))):
        d = json.load(open(j))
        if d.get('version_from') in ('log', 'thread'):
            out[d['version']].append(j[:-len('.json')] + '.log')
    return out


def bracket(repo, logs):
    tags = set()
    for path in logs:
        for ln in open(path, encoding='utf-8', errors='replace'):
            if (m := TAG.search(ln.rstrip('\n'))):
                tags.add((m.group(1), int(m.group(2)), m.group(3).strip()))
    held = [(t, repo.holds(*t)) for t in sorted(tags)]
    used = [(t, v) for t, v in held if any(v)]
    score = [sum(v[i] for _, v in used) for i in range(len(repo.order))]
    best = max(score, default=0)
    runs, i = [], 0
    while best and i < len(score):
        if score[i] == best:
            j = i
            while j + 1 < len(score) and score[j + 1] == best:
                j += 1
            runs.append((i, j))
            i = j
        i += 1
    return len(tags), len(used), best, runs, [t for t, v in held if not any(v)]


def day(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime('%Y-%m-%d %H:%M')


def main():
    gitdir, tip, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    pairs = [a.split('=', 1) for a in rest if '=' in a]
    roots = [a for a in rest if '=' not in a]
    groups = collections.defaultdict(list)
    for v, p in pairs:
        groups[v].append(p)
    if not pairs:
        groups = corpus_logs(roots[0] if roots else '.')
    if os.environ.get('PER_LOG'):
        groups = {f'{v} {os.path.basename(p)}': [p] for v, ps in groups.items() for p in ps}
    repo = Repo(gitdir, tip)
    for v in sorted(groups, key=lambda s: [int(x) if x.isdigit() else x for x in re.split(r'(\d+)', s)]):
        n, used, best, runs, dead = bracket(repo, groups[v])
        if n == 0:
            continue  # a log older than the [file.py:LINE] tags
        if 2 * best < n:
            print(f'{v}: {best} of {n} tags held at most: not in this history')
            continue
        spans = '; '.join(f'{repo.order[a][0][:10]}..{repo.order[b][0][:10]} ({b - a + 1} commits, '
                          f'{day(repo.order[a][1])} .. {day(repo.order[b][1])})' for a, b in runs)
        print(f'{v}: {best} of {used} held tags ({n} in all) at {spans or "no commit"}')
        for t in dead:
            print(f'    held nowhere: {t[0]}:{t[1]} {t[2][:60]}')


main()
