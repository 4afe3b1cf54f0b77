"""Throughput and answer form of CPDScore-simple requests on the local SmolLM2-135M-Instruct.

On a fixed set of hand-written turns (no benchmark data), each asked n times with sampling:
- items/s with sampled requests one at a time (batch 1, how sampled requests used to run) against
  left-padded batches of 8, each row drawing from its own seeded generator, and how many texts
  agree between the two;
- the share of first answers that `parse_score` cannot read, free text against decoding
  constrained to the `Score: N` regex after the prefilled "Score:".

Run: python perf/judge_throughput.py [--n N]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from dataclasses import replace

os.environ.setdefault("COMPERBENCH_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ["COMPERBENCH_CACHE"] = tempfile.mkdtemp(prefix="comperbench-bench-")

import torch

from comperbench import metrics
from comperbench.metrics.base import TurnItem
from comperbench.metrics.llm.backends.chat_requests import ChatRequest, Completion
from comperbench.metrics.llm.backends.local_model import LocalBackend
from comperbench.metrics.llm.parsing import Rejected, parse_score
from comperbench.schema import Utterance

MODEL = "SmolLM2-135M"

TURNS = [
    (
        "Hi! What do you like to do on weekends?",
        "I love hiking with my dog. What about you?",
        "I like things.",
        "The refrigerator is seven bananas tall.",
    ),
    (
        "I just got back from a trip to Japan.",
        "Oh nice! What was your favourite city there?",
        "Ok.",
        "My printer needs more toner on Tuesdays.",
    ),
    (
        "Do you have any pets?",
        "Yes, two cats. They sleep all day. Do you?",
        "Pets are animals.",
        "Quantum soup is the best soup.",
    ),
    (
        "I'm nervous about my exam tomorrow.",
        "That's normal. Which subject is it? Maybe I can help you review.",
        "Exams happen.",
        "Have you seen my left shoe?",
    ),
    (
        "What's your favourite book?",
        "Probably The Hobbit. I reread it every winter. Yours?",
        "Books are good I guess.",
        "The train leaves at the color blue.",
    ),
    (
        "I started learning to play the guitar.",
        "That's great! Are you learning chords or songs first?",
        "Guitar.",
        "Penguins cannot vote in elections.",
    ),
    (
        "It's been raining all week here.",
        "Ugh, that's gloomy. Are you stuck inside a lot?",
        "Rain is water.",
        "I bought a new keyboard for my horse.",
    ),
    (
        "Can you recommend a movie for tonight?",
        "If you like sci-fi, Arrival is wonderful. What genres do you enjoy?",
        "Movies exist.",
        "Seven is my least favourite vegetable.",
    ),
]


def items() -> list[TurnItem]:
    """Three responses (on topic, dull, off topic) to each of eight user turns."""
    out = []
    for index, (question, *responses) in enumerate(TURNS):
        context = (Utterance("User", question),)
        for kind, response in zip(("good", "dull", "off"), responses, strict=True):
            out.append(TurnItem(f"{index}-{kind}", response, context=context))
    return out


def timed(backend: LocalBackend, requests: list[ChatRequest]) -> tuple[list[Completion], float]:
    start = time.perf_counter()
    outcomes = backend.complete(requests)
    return [o for o in outcomes if isinstance(o, Completion)], time.perf_counter() - start


def unreadable(outs: list[Completion]) -> float:
    return sum(isinstance(parse_score(o.text), Rejected) for o in outs) / len(outs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=3, help="sampled calls per item")
    args = parser.parse_args()
    turns = items()
    free = metrics.get(f"cpdscore-simple[{MODEL},n={args.n},structured=false]")
    structured = metrics.get(f"cpdscore-simple[{MODEL},n={args.n}]")
    requests = [
        free.request(free.user_prompt(item, item.context), seed)
        for item in turns
        for seed in range(args.n)
    ]
    answer_format = structured.answer_format()
    constrained = [replace(r, answer_format=answer_format) for r in requests]
    print(
        f"torch threads: {torch.get_num_threads()}; model: {MODEL}; {len(turns)} items x "
        f"n={args.n} sampled calls (t={requests[0].temperature}, max_tokens="
        f"{requests[0].max_tokens}); constraint: regex {answer_format.regex!r} "
        f"after {requests[0].response_prefix!r}"
    )
    single, batched = LocalBackend(MODEL, batch_size=1), LocalBackend(MODEL, batch_size=8)

    one_by_one, one_s = timed(single, requests)
    together, batch_s = timed(batched, requests)
    same = sum(a.text == b.text for a, b in zip(one_by_one, together, strict=True))
    print(
        f"sampled requests: {len(turns) / one_s:.2f} items/s one at a time (batch 1); "
        f"{len(turns) / batch_s:.2f} items/s in batches of 8; speed-up x{one_s / batch_s:.2f}; "
        f"same text in both: {same} of {len(requests)}"
    )

    _, table_s = timed(batched, constrained[:1])
    shaped, shaped_s = timed(batched, constrained)
    print(
        f"first answers parse_score cannot read: free text {unreadable(together):.1%}, "
        f"constrained {unreadable(shaped):.1%} of {len(requests)}; constrained batches of 8 "
        f"{len(turns) / shaped_s:.2f} items/s (after a one-off {table_s:.1f} s token table)"
    )
    print("example free answers:", [o.text for o in together[:3]])
    print("example constrained answers:", [o.text for o in shaped[:3]])


if __name__ == "__main__":
    main()
