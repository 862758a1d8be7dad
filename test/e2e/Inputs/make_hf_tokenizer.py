#!/usr/bin/python3
"""Writes a Hugging Face tokenizer.json + tokenizer_config.json of one model
family into a directory, for the lit tests that compare tfm-tokenize --hf
with @huggingface/tokenizers. There is no network to the Hugging Face hub, so
the files are built the way the families' files are, from what exists:

  gpt2, qwen2, llama3, bloom
                         GPT-2's vocab.json + merges.txt (MODELS_DIR/gpt2-tokenizer)
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
  t5-v5                  t5 as transformers 5.x writes it: the normalizer
                         Sequence[Nmt, NFKC, Replace(' {2,}', ' ')] (SentencePiece's
                         nmt_nfkc with its whitespace squeezing) instead of
                         the charsmap
  t5-charsmap            t5 with a Precompiled normalizer: a charsmap whose
                         rules rewrite the corpora as the npm package's
                         approximation does (for the GGUF t5 tokenizer)

Usage: make_hf_tokenizer.py [--models MODELS_DIR] [--nmt-as-replace] KIND
           OUT_DIR [CORPUS ...]

--nmt-as-replace writes each Nmt normalizer as the two Replace normalizers
that define it, for the npm package, which has no Nmt.
"""
import argparse
import base64
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


LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
                  r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")


def llama3(models):
    """Llama 3's tokenizer.json over GPT-2's vocabulary: its digit-run
    pattern, no normalizer, ignore_merges, <|begin_of_text|> added."""
    vocab, merges = gpt2_files(models)
    pairs = [line.split(" ") for line in merges]
    added = [special("<|begin_of_text|>", 50257),
             special("<|end_of_text|>", 50258), special("<|eot_id|>", 50259)]
    split = {"type": "Split", "pattern": {"Regex": LLAMA3_PATTERN},
             "behavior": "Isolated", "invert": False}
    return tokenizer(
        bpe_model(vocab, pairs, ignore_merges=True),
        pre_tokenizer={"type": "Sequence", "pretokenizers": [
            split, byte_level(use_regex=False)]},
        post_processor=template(["<|begin_of_text|>", "$A"], {"<|begin_of_text|>": 50257}),
        decoder=byte_level(), added_tokens=added), {
        "bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>",
        # Llama 3's own says true; llama.cpp's GGUF reader never cleans up,
        # and this one is compared with a GGUF.
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


# tokenizers' Nmt normalizer: control characters dropped, other spaces and
# separators (and U+2581 itself) made ' '.
NMT_DROPPED = set(range(0x01, 0x09)) | {0x0B} | set(range(0x0E, 0x20)) | {0x7F, 0x8F, 0x9F}
NMT_SPACES = ({0x09, 0x0A, 0x0C, 0x0D, 0x1680, 0x2028, 0x2029, 0x2581, 0xFEFF, 0xFFFD}
              | set(range(0x200B, 0x2010)))


def t5_v5_normalize(text):
    text = "".join(" " if ord(c) in NMT_SPACES else c for c in text
                   if ord(c) not in NMT_DROPPED)
    text = unicodedata.normalize("NFKC", text)
    while "  " in text:
        text = text.replace("  ", " ")
    return text


def nmt_as_replace():
    """Nmt by its definition, as Replace normalizers."""
    def char_class(points):
        return "[" + "".join("\\x{%X}" % p for p in sorted(points)) + "]"
    return [{"type": "Replace", "pattern": {"Regex": char_class(NMT_DROPPED)},
             "content": ""},
            {"type": "Replace", "pattern": {"Regex": char_class(NMT_SPACES)},
             "content": " "}]


def t5(corpora, v5=False, nmt_as_replace_normalizers=False):
    pieces = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), (SPIECE, -2.0)]
    seen = {p for p, _ in pieces}

    def add(piece, score):
        if piece not in seen:
            seen.add(piece)
            pieces.append((piece, score))

    # Scores are multiples of 1/64, so sums along any path are exact and
    # ties compare the same in every implementation.
    normalize = t5_v5_normalize if v5 else t5_normalize
    words = corpus_words(corpora, normalize)[:300]
    for rank, word in enumerate(words):
        add(SPIECE + word, -3.0 - rank / 64)
        if len(word) > 3:
            add(SPIECE + word[:2], -6.0 - rank / 64)
            add(word[2:], -6.5 - rank / 64)
    for ch in corpus_chars(corpora, normalize):
        if not ch.isspace() and not is_emoji(ch) and ch != SPIECE:
            add(ch, -12.0)
    model = {"type": "Unigram", "unk_id": 2, "byte_fallback": False,
             "vocab": [[p, s] for p, s in pieces]}
    metaspace = {"type": "Metaspace", "replacement": SPIECE,
                 "prepend_scheme": "always", "split": True}
    added = [special("<pad>", 0), special("</s>", 1), special("<unk>", 2),
             special("<extra_id_0>", len(pieces))]
    normalizers = [{"type": "Replace", "pattern": {"Regex": "[\\x{200B}\\x{FEFF}]"},
                    "content": " "}, {"type": "NFKC"}]
    if v5:
        nmt = nmt_as_replace() if nmt_as_replace_normalizers else [{"type": "Nmt"}]
        normalizers = nmt + [{"type": "NFKC"},
                       {"type": "Replace", "pattern": {"Regex": " {2,}"},
                        "content": " "}]
    return tokenizer(
        model,
        normalizer={"type": "Sequence", "normalizers": normalizers},
        pre_tokenizer={"type": "Sequence", "pretokenizers": [
            {"type": "WhitespaceSplit"}, metaspace]},
        post_processor=template(["$A", "</s>"], {"</s>": 1}),
        decoder=metaspace, added_tokens=added), {
        "eos_token": "</s>", "clean_up_tokenization_spaces": False}


#===-- SentencePiece's precompiled charsmap -------------------------------===#

def double_array(entries):
    """A darts-clone double array (u32 units) mapping each UTF-8 key of
    `entries` to its value, the trie layout of SentencePiece's charsmap."""
    nodes = [{"children": {}, "value": -1}]
    for key, value in sorted(entries.items()):
        node = 0
        for byte in key:
            child = nodes[node]["children"].get(byte)
            if child is None:
                nodes.append({"children": {}, "value": -1})
                child = nodes[node]["children"][byte] = len(nodes) - 1
            node = child
        nodes[node]["value"] = value
    units, used, taken = [0] * 1024, set([0]), set()

    def place(node, pos, label, is_root):
        n = nodes[node]
        base = 1
        while (base in taken or (n["value"] >= 0 and base in used)
               or any(base ^ c in used for c in n["children"])):
            base += 1
        taken.add(base)
        while len(units) <= (base | 0xFF):
            units.extend([0] * len(units))
        units[pos] = ((pos ^ base) << 10) | (1 << 8 if n["value"] >= 0 else 0) \
            | (0 if is_root else label)
        if n["value"] >= 0:
            used.add(base)
            units[base] = n["value"] | (1 << 31)
        for c in n["children"]:
            used.add(base ^ c)
        for c, child in sorted(n["children"].items()):
            place(child, base ^ c, c, False)
    place(0, 0, 0, True)
    return units


def charsmap(rules):
    """SentencePiece's precompiled charsmap bytes for `rules` (text ->
    replacement): u32 trie size, the trie, the NUL-terminated
    replacements."""
    blob, entries = b"", {}
    for source, target in sorted(rules.items()):
        entries[source.encode("utf-8")] = len(blob)
        blob += target.encode("utf-8") + b"\0"
    units = double_array(entries)
    return struct.pack("<I", 4 * len(units)) + struct.pack(
        "<%dI" % len(units), *units) + blob


# What @huggingface/tokenizers' Precompiled normalizer does in place of the
# charsmap (T5's nmt_nfkc rules): drop controls, make whitespace a space,
# then NFKC.
NPM_CONTROLS = set(map(chr, list(range(1, 9)) + [0x0B] + list(range(0x0E, 0x20))
                       + [0x7F, 0x8F, 0x9F]))
NPM_SPACES = set(map(chr, [0x09, 0x0A, 0x0C, 0x0D, 0xA0, 0x1680]
                     + list(range(0x2000, 0x2010))
                     + [0x2028, 0x2029, 0x202F, 0x205F, 0x2581, 0x3000, 0xFEFF,
                        0xFFFD]))


def npm_precompiled(text):
    text = "".join(" " if c in NPM_SPACES else c for c in text
                   if c not in NPM_CONTROLS)
    return unicodedata.normalize("NFKC", text)


def charsmap_rules(corpora):
    """The rules a charsmap needs to rewrite the corpora as npm_precompiled
    does: each character it changes, and each base character with the marks
    after it that NFKC composes (rewritten whole, as SentencePiece looks up
    a grapheme before its code points)."""
    rules = {}
    for path in corpora:
        with open(path, encoding="utf-8", newline="") as f:  # keep \r
            text = f.read()
        for ch in set(text):
            if npm_precompiled(ch) != ch:
                rules[ch] = npm_precompiled(ch)
        i = 0
        while i < len(text):
            j = i + 1
            while j < len(text) and unicodedata.combining(text[j]):
                j += 1
            cluster = text[i:j]
            per_char = "".join(npm_precompiled(c) for c in cluster)
            if j - i > 1 and npm_precompiled(cluster) != per_char:
                rules[cluster] = npm_precompiled(cluster)
            i = j
    return rules


def t5_charsmap(corpora):
    """t5 with the Precompiled normalizer whose charsmap holds the corpora's
    rules (what a converted spiece.model carries), base64 in the file."""
    tok, config = t5(corpora)
    rules = charsmap_rules(corpora)
    tok["normalizer"] = {"type": "Precompiled", "precompiled_charsmap":
                         base64.b64encode(charsmap(rules)).decode("ascii")}
    return tok, config


def main():
    global SPM_FILE
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kind")
    parser.add_argument("out_dir")
    parser.add_argument("--models", default="")
    parser.add_argument("--spm-file", default="tokenizer.bin",
                        help="the llama2.c tokenizer in --models that the "
                        "SentencePiece-style kinds convert")
    parser.add_argument("--nmt-as-replace", action="store_true")
    parser.add_argument("corpora", nargs="*")
    args = parser.parse_args()
    SPM_FILE = args.spm_file
    builders = {
        "gpt2": lambda: gpt2(args.models),
        "qwen2": lambda: qwen2(args.models),
        "llama3": lambda: llama3(args.models),
        "bloom": lambda: bloom(args.models),
        "llama": lambda: llama(args.models),
        "mistral": lambda: mistral(args.models),
        "mistral-template": lambda: mistral(args.models, with_template=True),
        "gemma": lambda: gemma(args.models),
        "bert": lambda: bert(args.corpora),
        "t5": lambda: t5(args.corpora),
        "t5-v5": lambda: t5(args.corpora, v5=True,
                            nmt_as_replace_normalizers=args.nmt_as_replace),
        "t5-charsmap": lambda: t5_charsmap(args.corpora),
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
