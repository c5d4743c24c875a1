#!/usr/bin/env python3
"""Turns the pages swift-argument-parser generates into pages man, apropos and lexgrog
understand: `gallery-drop.1` (so `man gallery-drop` and `man gallery drop` find it), a NAME
section with one name, no page for hidden commands, and a main page with ENVIRONMENT,
FILES, EXIT STATUS as a table and EXAMPLES (from scripts/man-sections.mdoc)."""
import os
import re
import sys

HIDDEN = {"clipboard-owner", "help"}
folder, sections = sys.argv[1], sys.argv[2]


def fix_references(text):
    lines = []
    for line in text.split("\n"):
        # apropos shows the description as it stands: no quotes around it.
        if line.startswith('.Nd "') and line.endswith('"'):
            line = ".Nd " + line[5:-1]
        match = re.match(r"\.Xr gallery\.([a-z-]+) 1( ,)?$", line)
        if match:
            if match.group(1) in HIDDEN:
                continue
            line = ".Xr gallery-%s 1%s" % (match.group(1), match.group(2) or "")
        lines.append(line)
    # The last reference of a list takes no comma.
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].startswith(".Xr "):
            lines[index] = lines[index].removesuffix(" ,")
            break
    return "\n".join(lines)


for name in sorted(os.listdir(folder)):
    match = re.match(r"gallery\.([a-z-]+)\.1$", name)
    path = os.path.join(folder, name)
    if match:
        command = match.group(1)
        with open(path) as f:
            text = f.read()
        os.remove(path)
        if command in HIDDEN:
            continue
        text = text.replace(".Dt GALLERY.%s 1" % command.upper(), ".Dt GALLERY-%s 1" % command.upper())
        text = text.replace('.Nm "gallery %s"' % command, ".Nm gallery-%s" % command, 1)
        # In the synopsis the command is typed as two words.
        text = text.replace(".Sh SYNOPSIS\n.Nm\n", ".Sh SYNOPSIS\n.Nm gallery\n.Cm %s\n" % command, 1)
        with open(os.path.join(folder, "gallery-%s.1" % command), "w") as f:
            f.write(fix_references(text))
    elif name == "gallery.1":
        with open(path) as f:
            text = f.read()
        # The exit statuses of --help's text become a table of their own.
        text = re.sub(r"\.Pp\nEXIT STATUS\n.*?130 interrupted\n", "", text, flags=re.S)
        text = text.replace('.Sh "EXIT STATUS"\n.Ex -std\n', "")
        # So does the paragraph on file names.
        text = re.sub(r"\.Pp\nFILE NAMES\n.*?(?=\.Bl |\.Pp\n)", "", text, flags=re.S)
        with open(sections) as f:
            extra = f.read()
        text = text.replace('.Sh "SEE ALSO"', extra + '.Sh "SEE ALSO"')
        with open(path, "w") as f:
            f.write(fix_references(text))
