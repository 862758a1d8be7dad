"""An independent llama2.c tokenizer (run.c's encode), for checking tfm-tokenize.

  spm_reference.py TOKENIZER_BIN VOCAB_SIZE [--bos] < text

Prints the ids of each line of stdin, one line of space-separated ids per input
line, like `tfm-tokenize --spm TOKENIZER_BIN --lines`. The algorithm follows
karpathy/llama2.c run.c: a dummy-prefix space, one piece per UTF-8 code point
(or its bytes as <0xXX> tokens, id = byte + 3, when the code point is not a
piece), then repeatedly merging the adjacent pair whose concatenation is the
highest-scoring piece (the leftmost on ties).
"""
import struct
import sys


def load(path, vocab_size):
    data = open(path, "rb").read()
    at = 4  # max_token_length
    pieces, scores = [], []
    for _ in range(vocab_size):
        score, length = struct.unpack_from("<fi", data, at)
        at += 8
        pieces.append(data[at:at + length])
        scores.append(score)
        at += length
    return pieces, scores


def encode(text, pieces, scores, bos):
    index = {}
    for i, piece in enumerate(pieces):
        index.setdefault(piece, i)
    tokens = [1] if bos else []
    if not text:
        return tokens
    ids = [index[b" "]]
    for ch in text:
        raw = ch.encode("utf-8")
        if raw in index:
            ids.append(index[raw])
        else:
            ids.extend(b + 3 for b in raw)
    while True:
        best, best_id, best_at = -1e10, -1, -1
        for i in range(len(ids) - 1):
            merged = index.get(pieces[ids[i]] + pieces[ids[i + 1]])
            if merged is not None and scores[merged] > best:
                best, best_id, best_at = scores[merged], merged, i
        if best_at < 0:
            break
        ids[best_at:best_at + 2] = [best_id]
    return tokens + ids


def main():
    pieces, scores = load(sys.argv[1], int(sys.argv[2]))
    bos = "--bos" in sys.argv[3:]
    text = sys.stdin.buffer.read().decode("utf-8")
    for line in text.split("\n"):
        print(" ".join(str(i) for i in encode(line, pieces, scores, bos)))


if __name__ == "__main__":
    main()
