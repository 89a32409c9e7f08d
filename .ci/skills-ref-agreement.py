"""Where git-skill's lint and the agentskills reference validator (skills-ref, from PyPI) agree
and where they differ on purpose: each case is a skill built here, checked by both, and held to
the table below. Run by .ci/run: python skills-ref-agreement.py path/to/git-skill."""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from skills_ref.validator import validate


def frontmatter(extra="", name="pdf", desc="Fill PDF forms.", body="# PDF\n"):
    return f"---\nname: {name}\ndescription: {desc}\n{extra}---\n{body}".encode()


# case: (directory, SKILL.md bytes, skills-ref accepts?, git-skill's (code, level) pairs)
CASES = {
    "valid": ("pdf", frontmatter(), True, []),
    # The specification is explicit: "1-500 characters if provided". skills-ref does not check.
    "empty compatibility": ("pdf", frontmatter('compatibility: ""\n'), True, [("SK010", "error")]),
    "long compatibility": ("pdf", frontmatter("compatibility: " + "x" * 501 + "\n"), False, [("SK010", "error")]),
    # skills-ref turns metadata values into strings: a portability warning here.
    "metadata number": ("pdf", frontmatter("metadata:\n  version: 1.0\n"), True, [("SK026", "warning")]),
    "metadata nested": ("pdf", frontmatter("metadata:\n  a:\n    b: c\n"), True, [("SK026", "warning")]),
    "allowed-tools list": ("pdf", frontmatter("allowed-tools:\n  - Read\n  - Grep\n"), True, [("SK029", "warning")]),
    # Both readers: a byte order mark hides the frontmatter from skills-ref.
    "byte order mark": ("pdf", b"\xef\xbb\xbf" + frontmatter(), False, [("SK030", "warning")]),
    # Lowercase letters of other scripts are names for skills-ref, not for Anthropic's validator.
    "cyrillic name": ("навык", frontmatter(name="навык"), True, [("SK028", "warning")]),
    "chinese name": ("技能", frontmatter(name="技能"), True, [("SK028", "warning")]),
    "decomposed name": ("caf\u00e9", frontmatter(name="cafe\u0301"), True, [("SK028", "warning")]),
    "uppercase cyrillic": ("Навык", frontmatter(name="Навык"), False, [("SK006", "error")]),
    "underscore": ("pdf_forms", frontmatter(name="pdf_forms"), False, [("SK006", "error")]),
    "double hyphen": ("pdf--forms", frontmatter(name="pdf--forms"), False, [("SK006", "error")]),
    "long name": ("a" * 65, frontmatter(name="a" * 65), False, [("SK006", "error")]),
    "long description": ("pdf", frontmatter(desc="x" * 1025), False, [("SK008", "error")]),
    "missing description": ("pdf", b"---\nname: pdf\n---\nbody\n", False, [("SK007", "error")]),
    # Errors for skills-ref, warnings here: agents load such skills.
    "directory mismatch": ("other", frontmatter(), False, [("SK020", "warning")]),
    "unknown key": ("pdf", frontmatter("colour: red\n"), False, [("SK022", "warning")]),
    # "Keep your main SKILL.md under 500 lines": guidance, which skills-ref does not check.
    "501 lines": ("pdf", frontmatter(body="x\n" * 497), True, [("SK023", "warning")]),
}


def main():
    binary = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for case, (dirname, data, ref_ok, want) in CASES.items():
            skill = Path(tmp) / case.replace(" ", "-") / dirname
            skill.mkdir(parents=True)
            (skill / "SKILL.md").write_bytes(data)
            ref = validate(skill)
            run = subprocess.run([binary, "lint", "--format", "json", str(skill)], capture_output=True, text=True)
            got = [(d["code"], d["level"]) for d in json.loads(run.stdout)["diagnostics"]]
            ok = (not ref) == ref_ok and got == want
            print(f"  {'ok  ' if ok else 'FAIL'} {case}: skills-ref {'accepts' if not ref else 'rejects'}, git-skill {got}")
            if not ok:
                failures.append(f"{case}: skills-ref {ref}, git-skill {got}, expected accepts={ref_ok} and {want}")
    if failures:
        sys.exit("ci: skills-ref agreement table broken:\n" + "\n".join(failures))


main()
