#!/usr/bin/env python3
"""Makes the man pages swift-argument-parser generates lint-clean for mandoc: one sentence a
line, no blank lines in filled text (.Pp instead, none right before .It), lines under 80
columns, no trailing period on the one-line description."""
import re
import sys


def tidy(text):
    out = []
    for line in text.split("\n"):
        if line.startswith(".Nd "):
            line = re.sub(r'\.("?)$', r'\1', line)
        if line == "":
            out.append(".Pp")
            continue
        if line.startswith(".") or line.startswith("'"):
            out.append(line)
            continue
        # One sentence a line: break after ". ", "? ", "! " when a new sentence follows.
        for sentence in re.split(r"(?<=[.?!:])\s+(?=[A-Z`\"(])", line):
            out.extend(wrap(sentence))
    # No paragraph break right before a list item, nor two in a row, nor one at the end.
    cleaned = []
    for line in out:
        if line in (".It", ".Pp") or line.startswith(".It ") or line.startswith(".Sh ") or line.startswith(".El"):
            while cleaned and cleaned[-1] == ".Pp":
                cleaned.pop()
        cleaned.append(line)
    while cleaned and cleaned[-1] in (".Pp", ""):
        cleaned.pop()
    return "\n".join(cleaned) + "\n"


def wrap(sentence, width=78):
    words, lines, current = sentence.split(" "), [], ""
    for word in words:
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = word if not current else current + " " + word
    if current:
        lines.append(current)
    # A line starting with a dot or quote would be read as a request.
    return ["\\&" + l if l[:1] in (".", "'") else l for l in lines]


for path in sys.argv[1:]:
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(tidy(text))
