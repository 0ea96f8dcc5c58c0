"""Tiny randomly initialised Hugging Face models, built and saved by the tests (no download)."""

from __future__ import annotations

from pathlib import Path

WORDS = [
    "generate",
    "a",
    "question",
    "based",
    "on",
    "the",
    "given",
    "content",
    ":",
    "we",
    "are",
    "world",
    "who",
    "?",
    "what",
    "is",
    "paris",
    "capital",
    "of",
    "france",
    ".",
    "answer",
    "good",
    "bad",
    "yes",
    "no",
]


def tiny_tokenizer(eos_suffix: bool):
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {"<pad>": 0, "</s>": 1, "<unk>": 2, "<s>": 3}
    for w in WORDS:
        vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace()])
    if eos_suffix:  # T5-style: every encoded text ends with </s>
        tok.post_processor = processors.TemplateProcessing(
            single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", 1)]
        )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="<pad>",
        eos_token="</s>",
        unk_token="<unk>",
        bos_token="<s>",
    )


def build_t5(path: Path) -> Path:
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    torch.manual_seed(0)
    tok = tiny_tokenizer(eos_suffix=True)
    cfg = T5Config(
        vocab_size=len(tok),
        d_model=16,
        d_ff=32,
        d_kv=8,
        num_layers=1,
        num_decoder_layers=1,
        num_heads=2,
        pad_token_id=0,
        eos_token_id=1,
        decoder_start_token_id=0,
    )
    T5ForConditionalGeneration(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


def build_gpt2(path: Path) -> Path:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    tok = tiny_tokenizer(eos_suffix=False)
    cfg = GPT2Config(
        vocab_size=len(tok),
        n_embd=16,
        n_layer=1,
        n_head=2,
        n_positions=128,
        bos_token_id=3,
        eos_token_id=1,
    )
    GPT2LMHeadModel(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


def build_reward(path: Path) -> Path:
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    tok = tiny_tokenizer(eos_suffix=False)
    cfg = BertConfig(
        vocab_size=len(tok),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        num_labels=1,
        max_position_embeddings=128,
        pad_token_id=0,
    )
    BertForSequenceClassification(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path
