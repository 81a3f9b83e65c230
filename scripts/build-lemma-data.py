#!/usr/bin/env python3
"""Builds crates/spice/data/lemma-lexicon.txt, the word lists of the lemmatizer (src/lemmatize.rs).

    python3 scripts/build-lemma-data.py          # installs Debian's wordnet-base if it is missing

Sources:
  * WordNet 3.0 as Debian's `wordnet-base` ships it (/usr/share/wordnet): the noun and verb
    exception lists (irregular inflections) and the single-word verb lemmas of index.verb (they
    decide between "hop|hope" when undoing -ing/-ed, like WordNet's morphy validates its guesses).
  * scripts/lemma-overrides.txt, written by hand for this project: where CoreNLP's Morphology
    (the behaviour we reproduce) disagrees with WordNet on words that occur in captions.
The output is deterministic (sorted), so rebuilding it gives the same bytes.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WN = "/usr/share/wordnet"
OUT = os.path.join(ROOT, "crates", "spice", "data", "lemma-lexicon.txt")
OVERRIDES = os.path.join(ROOT, "scripts", "lemma-overrides.txt")


def ensure_wordnet():
    if os.path.exists(os.path.join(WN, "verb.exc")):
        return
    subprocess.run(["apt-get", "install", "-y", "-q", "wordnet-base"], check=True,
                   stdout=sys.stderr)


def single(word):
    return word.isascii() and "_" not in word and " " not in word


def read_exc(name):
    """inflected -> first base form (the list orders the more common reading first)."""
    table = {}
    with open(os.path.join(WN, name), encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and all(single(p) for p in parts[:2]):
                table.setdefault(parts[0], parts[1])
    return table


def read_index(name):
    words = set()
    with open(os.path.join(WN, name), encoding="utf-8") as f:
        for line in f:
            if line.startswith(" "):
                continue
            word = line.split(" ", 1)[0]
            if single(word):
                words.add(word)
    return words


def read_common_nouns():
    """Single-word common-noun lemmas of data.noun (lowercase as WordNet writes them), restricted to
    the endings where CoreNLP's rules keep known nouns and change unknown ones."""
    words = set()
    with open(os.path.join(WN, "data.noun"), encoding="utf-8") as f:
        for line in f:
            if line.startswith(" "):
                continue
            fields = line.split(" ")
            for i in range(int(fields[3], 16)):
                word = fields[4 + 2 * i].split("(", 1)[0]
                if single(word) and word.islower() and word.endswith(NOUN_ENDINGS):
                    words.add(word)
    return words


NOUN_ENDINGS = ("s", "i", "a", "u", "ie", "oe", "se", "ae", "men")


def read_overrides():
    """Sections "[noun]", "[verb]" (inflected base), "[noun-keep]", "[verb-keep]" (words),
    "[verb-base]" (extra verb lemmas), "[verb-not-base]" (WordNet verbs to ignore)."""
    sections = {}
    current = None
    with open(OVERRIDES, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("[") and line.endswith("]"):
                current = sections.setdefault(line[1:-1], [])
                continue
            if current is None:
                sys.exit(f"{OVERRIDES}:{number}: entry before the first [section]")
            current.append((number, line.split()))
    return sections


def main():
    ensure_wordnet()
    noun = read_exc("noun.exc")
    verb = read_exc("verb.exc")
    verb_base = read_index("index.verb")
    nouns = read_common_nouns()
    keep = {"noun-keep": set(), "verb-keep": set()}
    sections = read_overrides()
    for name, entries in sections.items():
        for number, fields in entries:
            if name in ("noun", "verb"):
                if len(fields) != 2:
                    sys.exit(f"{OVERRIDES}:{number}: [{name}] wants 'inflected base'")
                (noun if name == "noun" else verb)[fields[0]] = fields[1]
            elif name in keep:
                keep[name].update(fields)
            elif name == "verb-base":
                verb_base.update(fields)
            elif name == "verb-not-base":
                verb_base.difference_update(fields)
            elif name == "noun-base":
                nouns.update(fields)
            elif name == "noun-not-base":
                nouns.difference_update(fields)
            elif name == "noun-drop":
                for w in fields:
                    noun.pop(w, None)
            elif name == "verb-drop":
                for w in fields:
                    verb.pop(w, None)
            else:
                sys.exit(f"{OVERRIDES}:{number}: unknown section [{name}]")
    lines = [
        "# Lemmatizer word lists (src/lemmatize.rs). Generated: do not edit.",
        "# Rebuild: python3 scripts/build-lemma-data.py (WordNet 3.0 from Debian's wordnet-base,",
        "# plus scripts/lemma-overrides.txt). Lines: KIND<TAB>word[<TAB>lemma] with KIND",
        "# N = noun exception, V = verb exception, n = noun kept as is, v = verb kept as is,",
        "# B = verb lemma (decides e-restoration and doubled consonants), W = common-noun lemma",
        "# ending in one of NOUN_ENDINGS (decides whether a final -s, -i, -a is an inflection).",
    ]
    lines += [f"N\t{w}\t{b}" for w, b in sorted(noun.items())]
    lines += [f"V\t{w}\t{b}" for w, b in sorted(verb.items())]
    lines += [f"n\t{w}" for w in sorted(keep["noun-keep"])]
    lines += [f"v\t{w}" for w in sorted(keep["verb-keep"])]
    lines += [f"B\t{w}" for w in sorted(verb_base)]
    lines += [f"W\t{w}" for w in sorted(nouns)]
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {OUT}: {len(lines)} lines", file=sys.stderr)


if __name__ == "__main__":
    main()
