#!/usr/bin/env python3
"""The status words hardinit's C code passes to hi_report_add, one a line, as
tests/bats/onehome.bats compares them with init/report.c's table. A status
argument that is no string literal must be one of KNOWN_EXPRESSIONS (whose
words the unit test test_report checks); any other is printed as
'EXPRESSION file: text' so the test fails on it."""
import re
import sys
from pathlib import Path

# hi_sysctl_outcome_name()'s words are checked by tests/unit/test_report.c;
# memory.c's `status` holds one of them; report.c's is the parameter.
KNOWN_EXPRESSIONS = {"hi_sysctl_outcome_name(r.outcome)", "hi_sysctl_outcome_name(o)", "status", "const char *status"}


def call_args(text, start):
    """The top-level arguments of the call whose '(' is just before start."""
    depth, i, cur, args = 1, start, "", []
    while depth and i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            cur += text[i:j + 1]
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 1:
            args.append(cur.strip())
            cur = ""
        elif depth:
            cur += c
        i += 1
    args.append(cur.strip())
    return args


def main(root):
    words = set()
    for path in sorted(Path(root).glob("*/*.c")):
        text = path.read_text()
        for m in re.finditer(r"\bhi_report_add\s*\(", text):
            args = call_args(text, m.end())
            if len(args) < 4:
                continue
            status = args[3]
            literals = re.findall(r'"([^"]*)"', status)
            if literals:
                words.update(literals)
            elif status not in KNOWN_EXPRESSIONS:
                print(f"EXPRESSION {path.relative_to(root)}: {status}")
    for w in sorted(words):
        print(w)


if __name__ == "__main__":
    main(sys.argv[1])
