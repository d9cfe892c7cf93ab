#!/usr/bin/env python3
"""Where hardinit's C code names a TPM node: every string literal in the
product's C (init/ arch/ block/ tpm/ stages/ prog/ under the tree given)
that names one of the kernel's TPM nodes or their sysfs class (tpm0,
tpmrm0, tpm1, ..., /dev/tpm..., class/tpm), printed as 'FILE:LINE: LITERAL',
comments aside. tests/bats/onehome.bats holds that only tpm/tpm_dev.c does
(which node, in which order, for what); a file that opens a TPM node
itself has to name it, so it shows here too."""
import re
import sys
from pathlib import Path

FLOORS = ("init", "arch", "block", "tpm", "stages", "prog")
# A node's name is a whole literal or a path's component: "tpm0",
# "%s/tpmrm0", "/dev/tpm0"; "tpm2-pcrs" and "systemd-tpm2" are not.
NODE = re.compile(r'(^"tpm(rm)?[0-9]+"$|/tpm(rm)?[0-9]+(?![\w-])|/dev/tpm|class/tpm\b)')


def literals(text):
    """(line, literal) of each string literal, comments and chars skipped."""
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == "'":
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            yield line, text[i:j + 1]
            line += text.count("\n", i, j)
            i = j + 1
        else:
            line += c == "\n"
            i += 1


def main(root):
    root = Path(root)
    for floor in FLOORS:
        for f in sorted((root / floor).glob("*.[ch]")):
            for line, lit in literals(f.read_text(errors="replace")):
                if NODE.search(lit):
                    print(f"{f.relative_to(root)}:{line}: {lit}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
