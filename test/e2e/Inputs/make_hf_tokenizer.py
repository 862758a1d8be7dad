#!/usr/bin/python3
"""Writes a Hugging Face tokenizer.json + tokenizer_config.json of one model
family into a directory, for the lit tests that compare tfm-tokenize --hf
with @huggingface/tokenizers. There is no network to the Hugging Face hub, so
the files are built the way the families' files are, from what exists:

  gpt2, qwen2, bloom     GPT-2's vocab.json + merges.txt (MODELS_DIR/gpt2-tokenizer)
                         with GPT-2's, Qwen2's and BLOOM's normalizer,
                         pre-tokenizer, added tokens and post-processor
  llama, mistral, gemma  the Llama-2 SentencePiece vocabulary of MODELS_DIR/
                         tokenizer.bin (llama2.c format) as a BPE with byte
                         fallback, merges derived from the piece scores as
                         transformers' SentencePieceExtractor derives them;
                         Llama's legacy Prepend/Replace normalizer, Mistral's
                         Metaspace pre-tokenizer, Gemma's Replace normalizer
  mistral-template       mistral with the template that tokenizer_config.json's
                         add_bos_token asks for written into tokenizer.json
                         (the npm package ignores add_bos_token)
  bert                   a WordPiece vocabulary synthesized from the corpora
                         (BERT uncased: BertNormalizer, BertPreTokenizer,
                         [CLS] $A [SEP], [MASK])
  t5                     a Unigram vocabulary synthesized from the corpora
                         (T5-like: Metaspace, scores, $A </s>; NFKC instead of
                         the Precompiled charsmap, which the npm package
                         approximates)

Usage: make_hf_tokenizer.py KIND OUT_DIR [--models MODELS_DIR] [CORPUS ...]
"""
import argparse
import json
import os
import struct
import unicodedata

SPIECE = "\u2581"


def special(content, token_id, special=True, normalized=False, lstrip=False):
    return {"id": token_id, "content": content, "single_word": False,
            "lstrip": lstrip, "rstrip": False, "normalized": normalized,
            "special": special}


def bpe_model(vocab, merges, **options):
    model = {"type": "BPE", "dropout": None, "unk_token": None,
             "continuing_subword_prefix": None, "end_of_word_suffix": None,
             "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
             "vocab": vocab, "merges": merges}
    model.update(options)
    return model


def template(single, specials):
    return {"type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": s, "type_id": 0}} if s != "$A"
                       else {"Sequence": {"id": "A", "type_id": 0}}
                       for s in single],
            "pair": [],
            "special_tokens": {name: {"id": name, "ids": [i], "tokens": [name]}
                               for name, i in specials.items()}}


def tokenizer(model, normalizer=None, pre_tokenizer=None, post_processor=None,
              decoder=None, added_tokens=()):
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": list(added_tokens), "normalizer": normalizer,
            "pre_tokenizer": pre_tokenizer, "post_processor": post_processor,
            "decoder": decoder, "model": model}


#===-- GPT-2's vocabulary --------------------------------------------------===#

def gpt2_files(models):
    directory = os.path.join(models, "gpt2-tokenizer")
    with open(os.path.join(directory, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    with open(os.path.join(directory, "merges.txt"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    merges = [line for line in lines[1:] if line]
    return vocab, merges


def byte_level(add_prefix_space=False, use_regex=True):
    return {"type": "ByteLevel", "add_prefix_space": add_prefix_space,
            "trim_offsets": True, "use_regex": use_regex}


def gpt2(models):
    vocab, merges = gpt2_files(models)
    return tokenizer(bpe_model(vocab, merges), pre_tokenizer=byte_level(),
                     post_processor=byte_level(), decoder=byte_level(),
                     added_tokens=[special("<|endoftext|>", 50256,
                                           normalized=True)]), {
        "add_bos_token": False, "bos_token": "<|endoftext|>",
        "eos_token": "<|endoftext|>", "clean_up_tokenization_spaces": False}


QWEN2_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"
                 r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")


def qwen2(models):
    vocab, merges = gpt2_files(models)
    pairs = [line.split(" ") for line in merges]
    added = [special("<|endoftext|>", 50256), special("<|im_start|>", 50257),
             special("<|im_end|>", 50258),
             special("<tool_call>", 50259, special=False)]
    split = {"type": "Split", "pattern": {"Regex": QWEN2_PATTERN},
             "behavior": "Isolated", "invert": False}
    return tokenizer(
        bpe_model(vocab, pairs), normalizer={"type": "NFC"},
        pre_tokenizer={"type": "Sequence", "pretokenizers": [
            split, byte_level(use_regex=False)]},
        post_processor=byte_level(use_regex=False), decoder=byte_level(),
        added_tokens=added), {
        "bos_token": None, "eos_token": "<|im_end|>",
        "clean_up_tokenization_spaces": False}


def bloom(models):
    vocab, merges = gpt2_files(models)
    added = [special("<unk>", 50257), special("<s>", 50258),
             special("</s>", 50259), special("<pad>", 50260),
             special("<mask>", 50261, lstrip=True)]
    split = {"type": "Split",
             "pattern": {"Regex": " ?[^(\\s|[.,!?\u2026\u3002\uff0c\u3001\u0964\u06d4\u060c])]+"},
             "behavior": "Isolated", "invert": False}
    return tokenizer(
        bpe_model(vocab, merges),
        pre_tokenizer={"type": "Sequence", "pretokenizers": [
            split, byte_level(use_regex=False)]},
        post_processor={"type": "RobertaProcessing", "sep": ["</s>", 50259],
                        "cls": ["<s>", 50258], "trim_offsets": True,
                        "add_prefix_space": False},
        decoder=byte_level(), added_tokens=added), {
        "bos_token": "<s>", "eos_token": "</s>",
        "clean_up_tokenization_spaces": False}


#===-- The Llama-2 SentencePiece vocabulary --------------------------------===#

SPM_FILE = "tokenizer.bin"


def spm_pieces(models):
    """tokenizer.bin's pieces in SentencePiece spelling, with scores."""
    with open(os.path.join(models, SPM_FILE), "rb") as f:
        data = f.read()
    pos, pieces = 4, []
    while pos < len(data):
        score, length = struct.unpack("<fi", data[pos:pos + 8])
        pos += 8
        piece = data[pos:pos + length].decode("utf-8")
        pos += length
        pieces.append((piece.replace(" ", SPIECE), score))
    # llama2.c spells the control pieces "\n<s>\n" and "\n</s>\n".
    pieces[1] = ("<s>", 0.0)
    pieces[2] = ("</s>", 0.0)
    return pieces


def spm_merges(pieces):
    """Merges as transformers' SentencePieceExtractor derives them: every
    split of a piece into two pieces, ordered by the merged piece's score
    (then by the ids of the parts). Control and byte pieces never result
    from merges."""
    vocab = {piece: i for i, (piece, _) in enumerate(pieces)}
    merges = []
    for merged, (piece, score) in enumerate(pieces):
        if merged < 259:
            continue
        local = [(piece[:k], piece[k:], score) for k in range(1, len(piece))
                 if piece[:k] in vocab and piece[k:] in vocab]
        merges.extend(sorted(local, key=lambda m: (vocab[m[0]], vocab[m[1]])))
    merges.sort(key=lambda m: m[2], reverse=True)
    return [[left, right] for left, right, _ in merges]


def spm_model(models):
    pieces = spm_pieces(models)
    vocab = {piece: i for i, (piece, _) in enumerate(pieces)}
    return bpe_model(vocab, spm_merges(pieces), unk_token="<unk>",
                     fuse_unk=True, byte_fallback=True)


SPM_SPECIALS = [special("<unk>", 0), special("<s>", 1), special("</s>", 2)]
BOS_TEMPLATE = template(["<s>", "$A"], {"<s>": 1})
LLAMA_CONFIG = {"add_bos_token": True, "add_eos_token": False,
                "bos_token": {"__type": "AddedToken", "content": "<s>"},
                "eos_token": "</s>", "clean_up_tokenization_spaces": False,
                "legacy": True}


def replace(old, new):
    return {"type": "Replace", "pattern": {"String": old}, "content": new}


def llama(models):
    return tokenizer(
        spm_model(models),
        normalizer={"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": SPIECE}, replace(" ", SPIECE)]},
        post_processor=BOS_TEMPLATE,
        decoder={"type": "Sequence", "decoders": [
            replace(SPIECE, " "), {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        added_tokens=SPM_SPECIALS), LLAMA_CONFIG


def mistral(models, with_template=False):
    metaspace = {"type": "Metaspace", "replacement": SPIECE,
                 "prepend_scheme": "first", "split": False}
    added = SPM_SPECIALS + [special("[INST]", 32000), special("[/INST]", 32001)]
    return tokenizer(
        spm_model(models), pre_tokenizer=metaspace,
        post_processor=BOS_TEMPLATE if with_template else None,
        decoder={"type": "Sequence", "decoders": [
            {"type": "ByteFallback"}, metaspace]},
        added_tokens=added), dict(LLAMA_CONFIG, legacy=False)


def gemma(models):
    added = SPM_SPECIALS + [special("<start_of_turn>", 32000),
                            special("<end_of_turn>", 32001),
                            special("<unused0>", 32002, special=False,
                                    normalized=True)]
    return tokenizer(
        spm_model(models), normalizer=replace(" ", SPIECE),
        post_processor=BOS_TEMPLATE,
        decoder={"type": "Sequence", "decoders": [
            replace(SPIECE, " "), {"type": "ByteFallback"}, {"type": "Fuse"}]},
        added_tokens=added), dict(LLAMA_CONFIG, legacy=False)


#===-- Vocabularies synthesized from the corpora ---------------------------===#

def corpus_words(corpora, normalize):
    """Words of the corpora after `normalize`, split at spaces and
    punctuation, most frequent first (ties by spelling)."""
    counts = {}
    for path in corpora:
        with open(path, encoding="utf-8") as f:
            text = normalize(f.read())
        word = ""
        for ch in text + " ":
            if ch.isspace() or unicodedata.category(ch).startswith("P"):
                if word:
                    counts[word] = counts.get(word, 0) + 1
                word = ""
            else:
                word += ch
    return sorted(counts, key=lambda w: (-counts[w], w))


def corpus_chars(corpora, normalize):
    chars = set()
    for path in corpora:
        with open(path, encoding="utf-8") as f:
            chars.update(normalize(f.read()))
    return sorted(chars)


def is_emoji(ch):
    return ord(ch) >= 0x1F000 or unicodedata.category(ch) == "So"


def bert_normalize(text):
    text = "".join(c for c in unicodedata.normalize("NFD", text.lower())
                   if unicodedata.category(c) != "Mn")
    return text


def bert(corpora):
    vocab = {}
    for token in ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]:
        vocab[token] = len(vocab)
    # Every character, alone and as a continuation, except emoji and
    # control characters, which become [UNK].
    for ch in corpus_chars(corpora, bert_normalize):
        if ch.isspace() or is_emoji(ch) or unicodedata.category(ch)[0] == "C":
            continue
        for token in (ch, "##" + ch):
            vocab.setdefault(token, len(vocab))
    for word in corpus_words(corpora, bert_normalize)[:400]:
        vocab.setdefault(word, len(vocab))
        # Split longer words into a stem and a continuation, so WordPiece
        # has pieces to choose between.
        if len(word) > 5:
            vocab.setdefault(word[:3], len(vocab))
            vocab.setdefault("##" + word[3:], len(vocab))
    for suffix in ["ing", "ed", "s", "ly", "er", "tion", "est"]:
        vocab.setdefault("##" + suffix, len(vocab))
    added = [special(t, vocab[t]) for t in
             ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]]
    model = {"type": "WordPiece", "unk_token": "[UNK]",
             "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
             "vocab": vocab}
    return tokenizer(
        model,
        normalizer={"type": "BertNormalizer", "clean_text": True,
                    "handle_chinese_chars": True, "strip_accents": None,
                    "lowercase": True},
        pre_tokenizer={"type": "BertPreTokenizer"},
        post_processor=template(["[CLS]", "$A", "[SEP]"],
                                {"[CLS]": 2, "[SEP]": 3}),
        decoder={"type": "WordPiece", "prefix": "##", "cleanup": True},
        added_tokens=added), {
        "do_lower_case": True, "clean_up_tokenization_spaces": True,
        "mask_token": "[MASK]"}


def t5_normalize(text):
    return unicodedata.normalize("NFKC", text.replace("\u200b", " ")
                                 .replace("\ufeff", " "))


def t5(corpora):
    pieces = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), (SPIECE, -2.0)]
    seen = {p for p, _ in pieces}

    def add(piece, score):
        if piece not in seen:
            seen.add(piece)
            pieces.append((piece, score))

    # Scores are multiples of 1/64, so sums along any path are exact and
    # ties compare the same in every implementation.
    words = corpus_words(corpora, t5_normalize)[:300]
    for rank, word in enumerate(words):
        add(SPIECE + word, -3.0 - rank / 64)
        if len(word) > 3:
            add(SPIECE + word[:2], -6.0 - rank / 64)
            add(word[2:], -6.5 - rank / 64)
    for ch in corpus_chars(corpora, t5_normalize):
        if not ch.isspace() and not is_emoji(ch) and ch != SPIECE:
            add(ch, -12.0)
    model = {"type": "Unigram", "unk_id": 2, "byte_fallback": False,
             "vocab": [[p, s] for p, s in pieces]}
    metaspace = {"type": "Metaspace", "replacement": SPIECE,
                 "prepend_scheme": "always", "split": True}
    added = [special("<pad>", 0), special("</s>", 1), special("<unk>", 2),
             special("<extra_id_0>", len(pieces))]
    return tokenizer(
        model,
        normalizer={"type": "Sequence", "normalizers": [
            {"type": "Replace", "pattern": {"Regex": "[\\x{200B}\\x{FEFF}]"},
             "content": " "}, {"type": "NFKC"}]},
        pre_tokenizer={"type": "Sequence", "pretokenizers": [
            {"type": "WhitespaceSplit"}, metaspace]},
        post_processor=template(["$A", "</s>"], {"</s>": 1}),
        decoder=metaspace, added_tokens=added), {
        "eos_token": "</s>", "clean_up_tokenization_spaces": False}


def main():
    global SPM_FILE
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kind")
    parser.add_argument("out_dir")
    parser.add_argument("--models", default="")
    parser.add_argument("--spm-file", default="tokenizer.bin",
                        help="the llama2.c tokenizer in --models that the "
                        "SentencePiece-style kinds convert")
    parser.add_argument("corpora", nargs="*")
    args = parser.parse_args()
    SPM_FILE = args.spm_file
    builders = {
        "gpt2": lambda: gpt2(args.models),
        "qwen2": lambda: qwen2(args.models),
        "bloom": lambda: bloom(args.models),
        "llama": lambda: llama(args.models),
        "mistral": lambda: mistral(args.models),
        "mistral-template": lambda: mistral(args.models, with_template=True),
        "gemma": lambda: gemma(args.models),
        "bert": lambda: bert(args.corpora),
        "t5": lambda: t5(args.corpora),
    }
    tok, config = builders[args.kind]()
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "tokenizer.json"), "w",
              encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False, indent=1)
    with open(os.path.join(args.out_dir, "tokenizer_config.json"), "w",
              encoding="utf-8") as f:
        json.dump(config, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
