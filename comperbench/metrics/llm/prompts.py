"""Every prompt the LLM judges send, in one place.

Written for this package after the published designs: CPDScore (Wakaki et al. 2024, ComperDial),
the SODA-EVAL evaluator (Mendonça et al. 2024) and G-Eval form filling (Liu et al. 2023).
Placeholders are `str.format` fields; `render_dialogue` turns utterances into the `Speaker: text`
lines the prompts show.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from comperbench.loaders.hub.soda_eval import ISSUE_TYPES
from comperbench.metrics.llm.backends.chat_requests import AnswerFormat
from comperbench.schema import Utterance

SYSTEM = "You are a careful, impartial evaluator of open-domain dialogue."


def render_dialogue(utterances: Sequence[Utterance]) -> str:
    return "\n".join(f"{u.speaker or 'Speaker'}: {u.text}" for u in utterances) or "(no context)"


def render_list(lines: Sequence[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)


# ---------------------------------------------------------------------------------------------
# CPDScore (ComperDial): one overall 1-5 score, humanness first.

CPD_CRITERIA = (
    "Rate the overall quality of the response on a scale from 1 to 5, judging above all how "
    "human-like it is, with these qualities in mind: fluency (well-formed, natural language), "
    "consistency (no contradiction of itself or of the earlier turns), coherence (follows from "
    "and fits the conversation), engagingness (interesting, makes one want to continue) and "
    "persona consistency (agrees with the speaker's persona, when one is given)."
)

CPD_SCALE = (
    "1 = clearly not human-like: broken, off-topic or contradictory.\n"
    "2 = poor: several problems a person would notice at once.\n"
    "3 = acceptable: a plausible reply with noticeable weaknesses.\n"
    "4 = good: natural and fitting, with minor flaws.\n"
    "5 = excellent: indistinguishable from a thoughtful human reply."
)

CPD_STEPS = (
    "1. Read the conversation and, if given, the speaker's persona.\n"
    "2. Read the response and check whether it is fluent and well formed.\n"
    "3. Check whether it is consistent with itself, with earlier turns and with the persona.\n"
    "4. Check whether it is a coherent continuation of the last turn.\n"
    "5. Judge how engaging it is and, overall, how likely a person would have said it.\n"
    "6. Give one score from 1 to 5."
)

CPD_ANSWER = "Answer with one line of the form `Score: N`, N an integer from 1 to 5."

CPD_TURN_SIMPLE = """{criteria}

{persona}Conversation:
{context}

Response to rate:
{response}
{reference}
{answer}"""

CPD_TURN_DETAILED = """You will be given a conversation and one candidate response for its next turn.

Evaluation criteria:
{criteria}

Scale:
{scale}

Evaluation steps:
{steps}

{persona}Conversation:
{context}

Response to rate:
{response}
{reference}
{answer}"""

CPD_REFERENCE = """
Reference response written by a person (for comparison only; a different but good reply may
still deserve a high score):
{reference}
"""

CPD_PERSONA = """Persona of the responding speaker:
{persona}

"""

CPD_DIALOGUE_ADJUST = """You will be given a whole conversation and an intermediate score for it, the average of
per-turn scores from 1 to 5 that judged each turn on its own.

Per-turn judgments miss what only shows across turns: repetition of the same content, loss of
consistency or persona over the conversation, a conversation that never develops, or one that
stays engaging from beginning to end. Adjust the intermediate score for these multi-turn traits:
keep it when they do not matter, lower or raise it when they do.

{criteria}

Conversation:
{dialogue}

Intermediate score: {intermediate:.2f}

{answer}"""

CPD_DIALOGUE_ANSWER = "Answer with one line of the form `Score: N`, N a number from 1 to 5."

CPD_TURN_FORMAT = AnswerFormat(
    json_schema=json.dumps(
        {
            "type": "object",
            "properties": {"score": {"type": "integer", "enum": [1, 2, 3, 4, 5]}},
            "required": ["score"],
            "additionalProperties": False,
        }
    ),
    regex=" ?[1-5]",
)
"""The answer of the turn prompts, `Score: N` (a whole number), for structured output."""

CPD_DIALOGUE_FORMAT = AnswerFormat(
    json_schema=json.dumps(
        {
            "type": "object",
            "properties": {"score": {"type": "number", "minimum": 1, "maximum": 5}},
            "required": ["score"],
            "additionalProperties": False,
        }
    ),
    regex=r" ?([1-4](\.[0-9]{1,2})?|5(\.00?)?)",
)
"""The answer of the dialogue adjustment, `Score: N` with up to two decimals."""

# ---------------------------------------------------------------------------------------------
# SODA-EVAL evaluator: issues from the taxonomy, then an overall score and a comment, as JSON.


SODA_EVAL = """You will be given a conversation and the response of its last speaker. First list the
issues of the response, using only these issue types:
{taxonomy}

Then give an overall score from 1 (very poor) to 5 (excellent) and a short comment.

Conversation:
{context}

Response:
{response}

Answer with JSON only, in this form:
{{"issues": [{{"type": "<issue type>", "explanation": "<one sentence>"}}], "score": <1-5>, "comment": "<one sentence>"}}
Use an empty list when the response has no issue."""


def soda_eval_taxonomy() -> str:
    """The issue types of the SODA-EVAL prompt: the Soda-Eval taxonomy as the benchmark defines
    it, one `- type: definition` line each."""
    return "\n".join(f"- {issue_name(key)}: {text}" for key, text in ISSUE_TYPES.items())


def issue_name(key: str) -> str:
    """An issue type as the prompt writes it (`gender_pronoun` -> `gender pronoun`)."""
    return key.replace("_", " ")


SODA_EVAL_FORMAT = AnswerFormat(
    json_schema=json.dumps(
        {
            "type": "object",
            "properties": {
                "issues": {
                    "type": "array",
                    "maxItems": 4,
                    "items": {
                        "type": "object",
                        "properties": {
                            "type": {
                                "type": "string",
                                "enum": [issue_name(k) for k in ISSUE_TYPES],
                            },
                            "explanation": {"type": "string", "maxLength": 120},
                        },
                        "required": ["type", "explanation"],
                        "additionalProperties": False,
                    },
                },
                "score": {"type": "integer", "enum": [1, 2, 3, 4, 5]},
                "comment": {"type": "string", "minLength": 1, "maxLength": 200},
            },
            "required": ["issues", "score", "comment"],
            "additionalProperties": False,
        }
    )
)
"""The SODA-EVAL verdict as a JSON schema, for structured output."""

# ---------------------------------------------------------------------------------------------
# G-Eval form filling for any aspect.

GEVAL_DEFINITIONS = {
    "coherence": "the response continues the conversation logically and fits what was said before",
    "engagingness": "the response is interesting and makes the other speaker want to continue",
    "naturalness": "the response is something a person would naturally say in this conversation",
    "groundedness": "the response uses the given knowledge or persona correctly",
    "fluency": "the response is well-formed, grammatical language",
    "relevance": "the response is on topic for the last turn of the conversation",
    "consistency": "the response does not contradict the conversation or itself",
    "understandability": "the response can be understood without confusion",
    "specificity": "the response is specific to this conversation rather than generic",
    "interestingness": "the response is interesting or informative",
    "overall": "the overall quality of the response as the next turn of the conversation",
}

GEVAL_GENERIC_DEFINITION = "the {aspect} of the response, as the word is commonly understood"

GEVAL = """You will be given a conversation and one response for its next turn. Rate the response on
one aspect only.

Evaluation criterion:
{aspect_title} (1-5): {definition}.

Evaluation steps:
1. Read the conversation to understand its topic and what was said last.
2. Read the response and judge its {aspect} as defined above.
3. Assign a score from 1 (worst) to 5 (best).

{grounding}Conversation:
{context}

Response:
{response}

Evaluation Form (scores ONLY):
- {aspect_title}:"""

GEVAL_GROUNDING = """Knowledge or persona given to the responder:
{grounding}

"""

# ---------------------------------------------------------------------------------------------
# CPDScore as published (ComperDial, Appendix B.1.2-B.1.3 and B.2.2-B.2.3): the headings, fields,
# scales and answer forms of the paper's prompts; the instruction sentences reworded.

CPD_PAPER_ASPECTS = ("humanness", "fluency", "coherency", "consistency", "engagingness", "overall")
"""The six ratings of the simple prompt's output format (B.1.2, B.1.3), in its order."""

CPD_PAPER_SIMPLE = """### Context:
{context}
{reference}### Response:
{response}
### Instruction:
Rate the humanness, fluency, coherency, consistency, engagingness, and overall quality of the \
response to the context, each on a scale of 1 to 5, and write the ratings in the output format.
### Output Format:
{form}
### Your Response:
"""

CPD_PAPER_SIMPLE_REFERENCE = """### Reference response:
{reference}
"""

CPD_PAPER_HUMANNESS = """Humanness (1-5) Is the response human-like or not?
- A score of 1 (very bad) means that the response is incoherent and the conversation does not \
make sense.
- A score of 2 (relatively bad) means that the response makes sense as a conversation, but there \
are many bad points.
- A score of 3 (neither) means that the response is neither good nor bad.
- A score of 4 (fair enough) means that the response feels a little human-like.
- A score of 5 (very good) means the response feels like you are talking to an actual human."""
"""The criterion and its five anchors, as in B.2.2 and B.2.3."""

CPD_PAPER_DETAIL = """### Instructions:
You will see a conversation between two people, then one possible response for its next turn.
Rate that response on a single metric. Read these instructions carefully and come back to them \
whenever you need to while you judge.
### Evaluation Criteria:
{criterion}
### Evaluation Steps:
1. Read the conversation, {read}the corresponding fact and the response carefully.
2. Rate the response on a scale of 1-5 for humanness, according to the criteria above.
3. Provide a brief explanation for your rating, referring to specific aspects of the response and \
the conversation.
### Conversation History:
{context}
{reference}### Corresponding Fact:
{fact}
### Response:
{response}
### Evaluation Form (scores ONLY):
- Humanness:"""

CPD_PAPER_DETAIL_REFERENCE = """### Corresponding Reference Response:
{reference}
"""

CPD_PAPER_NO_FACT = "(none)"
"""The fact field of an item with no knowledge or persona."""

# CPDS-Dial as published (ComperDial, Appendix B.3): turn scores and responses in, three scores out.

CPD_PAPER_DIAL_FIELDS = ("Overall Dialogue Turn Score", "Dialogue Interaction Score", "Final Score")
"""The evaluation form of B.3, in its order."""

CPD_PAPER_DIAL_WORD_LIMIT = 20
"""B.3: "If a response consists of more than twenty words, please consider the response is too
long."."""

CPD_PAPER_DIAL = """### Instructions:
Judge, as a whole, several responses a dialogue model gave in one dialogue: are they human-like or \
not? Make 2 evaluations first, then a final one, the "Final Score."
The dialogue has {count} turns. Each turn has already been rated on a scale of 1-5; that rating is \
its "Dialogue Turn Score."
Follow the "Evaluation Steps" one by one and give the "Final Score" at the end.
Read these instructions carefully and come back to them whenever you need to.
Give no reasons: write only the "Evaluation Form."
### Evaluation Steps:
1.Review the "Dialogue Turn Scores" to see the ratings for each turn.
2.Evaluate the dialogue as a whole based on the scores of each turn, and give an "Overall Dialogue \
Turn Score."
3.Review the multiple responses from the dialogue shown in "Responses" and read the "Dialogue \
Interaction Evaluation Criteria."
4.Evaluate the multiple responses in "Responses" and give a "Dialogue Interaction Score" based on \
the "Dialogue Interaction Evaluation Criteria."
5.Finally, give a "Final Score" with a score between 1-5, based on the below conditions.
If the "Overall Dialogue Turn Score" is less than 4: take into account both the "Overall Dialogue \
Turn Score" and the "Dialogue Interaction Score" to determine the "Final Score."
If the "Overall Dialogue Turn Score" is higher than 4: disregard the "Dialogue Interaction Score" \
and only look at the "Overall Dialogue Turn Score" to determine the "Final Score."
There is one exception. If the "Overall Dialogue Turn Score" is 4 or higher but the "Dialogue \
Interaction Score" was given a low score due to the inordinate length of the response, take into \
account both the "Overall Dialogue Turn Score" and the "Dialogue Interaction Score" to determine \
the "Final Score."
6.The output should include 3 scores, the "Overall Dialogue Turn Score," the "Dialogue Interaction \
Score," and the "Final Score."
### Dialogue Turn Scores:
{turn_scores}
### Dialogue Interaction Evaluation Criteria:
Check every turn in the "Responses" for features that are not human-like. The "Dialogue \
Interaction Score" should be low for features such as being distinctly impersonal (the response \
explains too much or is inordinately long) or dull (it sounds superficial or always answers in \
the same pattern). Also count the words of each turn: if a response consists of more than \
{limit} words, consider the response too long. Judge the responses as a whole and give a score \
between 1-5 as the "Dialogue Interaction Score." You may use decimal points, such as 3.5. The \
approximate criteria are as follows.
score 1 : Very bad : all responses have similar patterns and/or some of the responses are too long
score 2 : Relatively bad
score 3 : Neither bad nor good
score 4 : Fair enough
score 5 : Very good : When comparing the multiple turns, the sentences vary in length and semantic \
content, and uses a wide variety of vocabulary
### Responses:
{responses}
### Evaluation Form:
{form}"""

# ---------------------------------------------------------------------------------------------
# The SODA-EVAL evaluator as published (Mendonça et al. 2024, Table 11 and Appendix C.2): the
# taxonomy with the definitions of Table 3, a brief comment of at most 25 words, a JSON verdict,
# one example without issues and one with; the instruction sentences reworded.

SODA_PAPER_TAXONOMY = {
    "Coherence": "Contradicts or ignores prior information in the dialogue.",
    "Commonsense": "Lacks common knowledge and logic.",
    "Assumption": "Infers information not available in the dialogue context.",
    "Repetition": "Repeats prior information in the dialogue.",
    "Engagement": "Lacks a behaviour or emotion expected from the situation.",
    "Antisocial": "Contains unsafe or inappropriate behaviour.",
    "Fluency": "Contains typos or other grammatical errors.",
    "Gender Pronoun": "Goes against normative pronoun.",
    "Non-textual": (
        "Includes narrative elements or references unexpected inside a turn of a dyadic "
        "interaction."
    ),
    "Other": "Any other issue that affects the quality of the response.",
}
"""The issue types and definitions of Table 3, in its order."""

SODA_PAPER_WORD_LIMIT = 25
"""Table 11: "a brief (maximum 25 word) comment"."""

SODA_PAPER_FORMAT_TEXT = (
    '{"issues": [{"type": "<issue type>", "comment": "<the issue, described>"}], '
    '"score": <1-5>, "overall_comment": "<brief comment>"}'
)
"""The JSON form of a verdict, with the field names of the published dataset."""

SODA_PAPER = """You are an expert judge of dialogue. You will evaluate responses, generated \
synthetically, that simulate open-domain conversations between two people. Find every error or \
issue in the response, and in the response only: an issue of the dialogue history is not one to \
report.

The criteria of the evaluation are these issue types:
{taxonomy}

Then rate the response overall, from 1 (poor) to 5 (excellent), and add a brief comment (maximum \
{limit} words).

Write your evaluation in this JSON format:
{format}

When the response has no issue, the list stays empty. For each issue, give its type and describe \
it in the comment field.

An example of a response without issues:

{example_clean}

An example of a response with issues:

{example_issues}

{item}"""

SODA_PAPER_ITEM = """Dialogue history:
{context}
Response:
{response}
Evaluation:"""

SODA_PAPER_EXAMPLES = (
    (
        (
            ("Maya", "I finally finished painting the spare room yesterday."),
            ("Leo", "Nice! What colour did you go with in the end?"),
        ),
        "A soft green. It makes the room feel calm, and it goes with the old desk.",
        {
            "issues": [],
            "score": 5,
            "overall_comment": "Answers the question directly and naturally, consistent with "
            "the dialogue.",
        },
    ),
    (
        (
            ("Sam", "I can't come on Saturday, I'm working a double shift at the bakery."),
            ("Rita", "That's a shame. Will you at least get Sunday off?"),
        ),
        "Yes, I'm free all weekend, so Saturday works for me. Saturday works for me.",
        {
            "issues": [
                {
                    "type": "Coherence",
                    "comment": "Sam says he is free all weekend after saying he works on Saturday.",
                },
                {"type": "Repetition", "comment": "The same sentence is said twice."},
            ],
            "score": 2,
            "overall_comment": "The response contradicts Sam's earlier statement and repeats "
            "itself.",
        },
    ),
)
"""The two examples of Table 11 (the paper does not publish its own): dialogue history,
response and verdict, written for this package."""


def soda_paper_item(history: Sequence[Utterance], response: str) -> str:
    """One example to evaluate: the history as `Speaker: text` lines, then the response."""
    return SODA_PAPER_ITEM.format(context=render_dialogue(history), response=response)


def soda_paper_example(index: int) -> str:
    """Example `index` of `SODA_PAPER_EXAMPLES` with its verdict."""
    history, response, verdict = SODA_PAPER_EXAMPLES[index]
    item = soda_paper_item([Utterance(*u) for u in history], response)
    return f"{item}\n{json.dumps(verdict)}"


SODA_PAPER_ANSWER = AnswerFormat(
    json_schema=json.dumps(
        {
            "type": "object",
            "properties": {
                "issues": {
                    "type": "array",
                    "maxItems": len(SODA_PAPER_TAXONOMY),
                    "items": {
                        "type": "object",
                        "properties": {
                            "type": {"type": "string", "enum": list(SODA_PAPER_TAXONOMY)},
                            "comment": {"type": "string", "minLength": 1, "maxLength": 300},
                        },
                        "required": ["type", "comment"],
                        "additionalProperties": False,
                    },
                },
                "score": {"type": "integer", "enum": [1, 2, 3, 4, 5]},
                "overall_comment": {"type": "string", "minLength": 1, "maxLength": 300},
            },
            "required": ["issues", "score", "overall_comment"],
            "additionalProperties": False,
        }
    )
)
"""The verdict of `SODA_PAPER` as a JSON schema, for structured output."""
