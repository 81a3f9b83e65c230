#!/usr/bin/env python3
"""Writes the lemmatizer's full parity test set: (word, tag) pairs that matter for captions.

    python3 scripts/lemma-pairs.py > pairs.tsv     # reads $SPICEBOARD_DATA (scripts/fetch-data)

Words: every token of the COCO 2014 captions (train + val), split roughly (whitespace, punctuation,
clitics), both lowercased and as written, each with the tags a tagger could plausibly give it; plus
every word of METEOR 1.5's english.synsets and english.exceptions with the open-class tags.
Output lines are "word<TAB>tag<TAB>count" (count = how often the word form occurs in COCO, 0 for
words only in METEOR's lists), most frequent first, each pair once. scripts/lemma-parity compares
our lemmatizer with CoreNLP's over all of them.
"""
import collections
import json
import os
import re
import sys

OPEN_TAGS = ["NN", "NNS", "NNP", "NNPS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ",
             "JJ", "JJR", "JJS", "RB", "RBR", "RBS"]
# Closed-class and other tags, tried on the frequent words only (they are what a tagger gives
# function words, numbers and punctuation).
OTHER_TAGS = ["IN", "DT", "PRP", "PRP$", "CD", "MD", "CC", "RP", "TO", "EX", "WDT", "WP", "WP$",
              "WRB", "PDT", "POS", "UH", "FW", "SYM", "LS", ",", ".", ":", "``", "''", "-LRB-",
              "-RRB-", "#", "$"]
FREQUENT = 3000

CLITIC = re.compile(r"(?i)^(.+?)(n't|'s|'re|'ve|'ll|'d|'m|s')$")
LEAD = "\"'`([{<"
TRAIL = "\"'`)]}>.,!?;:"


def tokens(caption):
    for raw in caption.split():
        head = []
        while raw and raw[0] in LEAD:
            head.append(raw[0])
            raw = raw[1:]
        tail = []
        while raw and raw[-1] in TRAIL:
            tail.append(raw[-1])
            raw = raw[:-1]
        yield from head
        if raw:
            m = CLITIC.match(raw)
            if m and m.group(2) != "s'":
                yield m.group(1)
                yield m.group(2)
            elif m:
                yield raw[:-1]
                yield "'"
            else:
                yield raw
        yield from reversed(tail)


def main():
    data = os.environ.get("SPICEBOARD_DATA")
    if not data:
        sys.exit("lemma-pairs: SPICEBOARD_DATA is not set (run scripts/fetch-data)")
    counts = collections.Counter()
    for split in ("train", "val"):
        with open(os.path.join(data, "coco", f"captions_{split}2014.json"), encoding="utf-8") as f:
            for ann in json.load(f)["annotations"]:
                for tok in tokens(ann["caption"]):
                    counts[tok] += 1
                    low = tok.lower()
                    if low != tok:
                        counts[low] += 1
    seen = set()
    out = sys.stdout

    def emit(word, tag, count):
        if "\t" in word or "\n" in word or (word, tag) in seen:
            return
        seen.add((word, tag))
        out.write(f"{word}\t{tag}\t{count}\n")

    ranked = counts.most_common()
    for rank, (word, count) in enumerate(ranked):
        for tag in OPEN_TAGS:
            emit(word, tag, count)
        if rank < FREQUENT or not any(c.isalpha() for c in word):
            for tag in OTHER_TAGS:
                emit(word, tag, count)
    meteor = os.path.join(data, "meteor-synonym")
    words = []
    with open(os.path.join(meteor, "english.synsets"), encoding="utf-8") as f:
        words += [line.strip() for i, line in enumerate(f) if i % 2 == 0]
    with open(os.path.join(meteor, "english.exceptions"), encoding="utf-8") as f:
        words += [w for line in f for w in line.split()]
    for word in words:
        if word:
            for tag in OPEN_TAGS:
                emit(word, tag, counts.get(word, 0))


if __name__ == "__main__":
    main()
