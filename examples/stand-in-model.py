#!/usr/bin/env python3
"""A stand-in model for git-skill's `command` provider: try `git skill optimize` (and see the
protocol) without a language model. Standard library only.

    git config skill.provider command
    git config skill.command "python3 $PWD/examples/stand-in-model.py"
    git skill llm ping
    git skill optimize <skill> --dry-run

The protocol (docs/configuration.md, "The command protocol"):

- git-skill runs `sh -c "$skill.command"` once per request, in the directory git-skill runs in,
  with `GIT_SKILL_PURPOSE` set to what the request is for: `ping`, `triage`, `reflect`, `gate`,
  `regression` (optimize) or `review` (the background review).
- The whole request comes on stdin as one UTF-8 text: the system text, then the messages (under
  `## User` / `## Your earlier answer` headings when there are several: a repair request
  quotes the earlier answer and what was wrong with it), then, when a JSON answer is expected,
  the JSON schema it must follow.
- The answer goes to stdout (UTF-8, at most 16 MiB): the JSON object, bare, fenced or inside
  other text. git-skill checks it against the schema and the contract, and asks once more
  quoting the problem when it does not fit.
- Exit 0. Any other exit status is an error that quotes the end of stderr; so is an empty
  answer. A command that outlives `skill.timeout` is killed with every process it started.

This stand-in answers like a model that always agrees: one cluster of every signal (triage),
one line added at the end of the skill that quotes the first correction (reflect), "fixed"
(gate), "not back" (regression), and, for the review, nothing to save. It reads only its
stdin and writes only its stdout.
"""

import json
import os
import re
import sys


def fenced_block(prompt, label):
    """The text of the data block labelled `label` (see src/prompt/fence.rs)."""
    m = re.search(r"^(`{3,})" + re.escape(label) + r"\n(.*?)^\1$", prompt, re.S | re.M)
    return m.group(2) if m else ""


def triage(prompt):
    ids = list(dict.fromkeys(re.findall(r'"signal_id": "([^"]+)"', prompt)))
    kinds = set(re.findall(r'"type": "(corrected|friction)"', prompt))
    return {
        "clusters": [{
            "cluster_id": "c_001",
            "root_cause": "what the signals report",
            "signal_ids": ids,
            "type": "corrected" if "corrected" in kinds or not kinds else "friction",
            "count": len(ids),
        }],
        "conflicts": [],
        "stale_signals": [],
        "priority_order": ids,
    }


def reflect(prompt):
    skill = fenced_block(prompt, "SKILL.md")
    lines = [l for l in skill.splitlines() if l.strip() and not l.startswith("<omit ")]
    # The last line that occurs once is the anchor: `add` puts the new text after it.
    anchor = next((l for l in reversed(lines) if skill.count(l) == 1), None)
    corrections = re.findall(r'"correction": "((?:[^"\\]|\\.)*)"', prompt)
    rule = json.loads(f'"{corrections[0]}"') if corrections else "Follow the recorded feedback."
    # A correction that rewrites a numbered step ("step 3: Save over the original.") replaces it.
    step = re.match(r"step (\d+): (.+)", rule, re.I | re.S)
    if step:
        target = next((l for l in lines if l.startswith(f"{step.group(1)}. ")), None)
        if target:
            return {
                "diagnosis": f"Step {step.group(1)} is not what the user wants.",
                "edits": [{
                    "type": "replace",
                    "target": target,
                    "new": f"{step.group(1)}. {step.group(2).strip()}",
                    "reason": "the user's correction",
                    "source_cluster_id": "c_001",
                }],
            }
    if anchor is None:
        return {"diagnosis": "No line of the skill can anchor an edit.", "edits": []}
    return {
        "diagnosis": "The skill does not say what the user had to correct.",
        "edits": [{
            "type": "add",
            "target": anchor,
            "new": f"\n\n- {rule}",
            "reason": "the user's correction",
            "source_cluster_id": "c_001",
        }],
    }


def gate(prompt):
    m = re.search(r'`cluster_id` is "([^"]+)"', prompt)
    cluster = m.group(1) if m else "c_001"
    rewrite = "NOT_COVERED" in prompt and "Answer YES or NO" not in prompt
    return {"cluster_id": cluster, "verdict": "COVERED" if rewrite else "NO",
            "reason": "the candidate addresses it"}


def eval_agent(prompt):
    """An agent that, with a skill loaded, answers by following its steps (it quotes them)."""
    skill = re.search(r"<skill name=.*?>\n(.*?)\n</skill>", prompt, re.S)
    if not skill:
        return "Here is my best answer, without any skill loaded."
    steps = [l.strip() for l in skill.group(1).splitlines() if re.match(r"\s*(\d+\.|-)\s", l)]
    return "Following the skill:\n" + "\n".join(steps)


def eval_grade(prompt):
    """A judge that holds an assertion true when each `code span` in it is in the answer."""
    answer = fenced_block(prompt, "answer")
    block = fenced_block(prompt, "assertions.json")
    assertions = json.loads(block) if block.strip() else []
    graded = []
    for text in assertions:
        terms = re.findall(r"`([^`]+)`", text)
        passed = all(t.lower() in answer.lower() for t in terms)
        graded.append({"text": text, "passed": passed,
                       "evidence": "found in the answer" if passed else "not in the answer"})
    return {"assertions": graded, "expected_output_met": bool(answer.strip()),
            "reason": "judged by the stand-in"}


def main():
    prompt = sys.stdin.read()
    purpose = os.environ.get("GIT_SKILL_PURPOSE", "")
    if purpose == "triage":
        answer = triage(prompt)
    elif purpose == "reflect":
        answer = reflect(prompt)
    elif purpose in ("gate", "regression"):
        answer = gate(prompt)
    elif purpose == "review":
        print("Nothing to save.")
        return
    elif purpose == "eval":
        print(eval_agent(prompt))
        return
    elif purpose == "eval-grade":
        answer = eval_grade(prompt)
    else:
        print("pong")
        return
    print(json.dumps(answer, ensure_ascii=False))


if __name__ == "__main__":
    main()
