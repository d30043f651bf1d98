"""Search queries without a model: keyword queries from the open questions, and the multi-hop step.

A fact found so far often names what the next hop must search for: a PEP
number, a version string, a function or module, a product or a person. Those
identifiers, joined to an open question's keywords, are the multi-hop queries.
A goal that states, then asks ("Click uses a standard-library module to make
better suggestions. How many matches does that module's function return?")
also bridges through the fact that says its statement: the words there it does
not say ("difflib"), joined to what it asks. Pseudo-relevance feedback adds
the best facts' most distinctive terms to a question's keywords. No query
already run is proposed again.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from fathom_ray.judges.evidence.decompose import question_sentences
from fathom_ray.judges.evidence.terms import keywords, query_terms, stem, terms
from fathom_ray.judges.evidence.vocabulary import is_common
from fathom_ray.models import ChecklistItem, Fact

_IDENTIFIERS = (
    re.compile(r"\b(?:PEP|RFC|bpo|gh|SQL)[ -]?\d+\b"),
    re.compile(r"(?<![\w.])\d+\.\d+(?:\.\d+)?(?![\w.]*\d)"),
    re.compile(r"\b[a-z_][a-z0-9_]+(?:\.[a-z_][a-z0-9_]+)+(?:\(\))?"),
    re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\(\)"),
    re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z\u00c0-\u017f]+(?:[ \t]+[A-Z][a-z\u00c0-\u017f]+)+"),
    re.compile(r"\b[A-Z](?=[A-Za-z0-9]*[a-z])[A-Za-z0-9]*[A-Z][A-Za-z0-9]*\b"),
)
MAX_ITEM_KEYWORDS = 6
MAX_TOPIC_WORDS = 6
# Words that say what kind of answer a question wants, or how it leans on what came before, rather
# than what it is about: a search engine ranks pages by them too ("release" brings release notes).
_FRAMING = (
    "version versions release releases released date dates year day when support supports supported "
    "add adds added introduce introduces introduced arrive arrives arrived appear appears appeared "
    "available start started begin began require requires required need needs minimum newer older "
    "later earlier documentation docs define defines described describe describes specify specifies "
    "mean means ability gain gained kind kinds sort wrote written contributed contribute contributor "
    "author authors person people said called named name names use used using primary reference "
    "engine engines database databases module modules language project tool library both let"
)
FRAME_WORDS = frozenset(_FRAMING.split())
_LEANS_ON_ANOTHER = re.compile(r"\b(other|another|former|latter)\b", re.I)
FEEDBACK_TERMS = 2
HOPS_PER_ITEM = 2
VERSION_HOP_WEIGHT = 0.5
_VERSION = re.compile(r"v?\d+\.\d+(?:\.\d+)*")
_NUMBERED = re.compile(r"\b(?:version|release)\s+(v?\d+(?:\.\d+)*)(?![\w.]*\d)", re.I)
_ASKS_OF_A_VERSION = re.compile(r"\b(version|release)s?\b", re.I)


def identifiers(text: str) -> list[str]:
    """PEP numbers, version strings, dotted and called names, capitalised and mixed-case names
    ("PostgreSQL"), in order of appearance. A word all in capitals ("UPSERT", "FALSE") is a keyword
    of the page's subject more often than a name, and a dotted name of one-letter parts ("t1.a")
    an example's column; neither is a lead."""
    found: list[tuple[int, int, str]] = []
    for pattern in _IDENTIFIERS:
        found += [(m.start(), -len(m.group(0)), m.group(0)) for m in pattern.finditer(text)]
    names: list[str] = []
    covered_to = -1
    for start, negative_length, name in sorted(found):
        if start + -negative_length <= covered_to:
            continue  # inside a longer name already taken ("PEP" in "PEP 572")
        covered_to = max(covered_to, start - negative_length)
        names.append(name)
    return list(dict.fromkeys(names))


def topic(question: str) -> str:
    """A short query of what ``question`` is about: its own keywords without the words that frame
    the answer ("which version", "who wrote", "that other engine"), and, when it leans on its
    context in parentheses, the context's subject. "What does MERGE do (date PostgreSQL release added
    support SQL)?" is about "MERGE PostgreSQL SQL"; a search engine ranks the pages of that subject
    above the release notes the framing words match. A part about "the other" thing takes no name
    from its context, which names the thing it is not. Empty when nothing but framing is left."""
    own, _, context = question.partition(" (")
    words = _subject(own)
    if context and not _LEANS_ON_ANOTHER.search(own):
        words += _subject(context.rstrip("?)"))
    firsts: dict[str, str] = {}
    for word in words:
        firsts.setdefault(stem(word.lower()), word)  # each word once
    words = list(firsts.values())
    return " ".join(words[:MAX_TOPIC_WORDS])


def _subject(text: str) -> list[str]:
    """Keywords without framing words and bare whole numbers ("PostgreSQL 15": a page of any
    release matches "15"); a dotted version ("3.7.15") is specific and stays."""
    return [w for w in keywords(text) if w.lower() not in FRAME_WORDS and not w.isdigit()]


def discover(
    goal: str, open_items: Sequence[ChecklistItem], facts: Sequence[Fact], done: Sequence[str], count: int
) -> list[str]:
    """Up to ``count`` new queries: multi-hop ones first when facts name something, then keywords."""
    # the goal, while its parts are open, is searched through them
    items = [i.question for i in open_items if i.question != goal] or [goal]
    ranked_facts = sorted(facts, key=lambda f: -f.confidence)
    hops = _multi_hop(items, ranked_facts, goal)
    topics = [topic(q) for q in items]
    asks = [_asked_topic(q) for q in items]
    # a goal that states, then asks: the fact that says its statement names what it asks about
    bridges = [_statement_hop(goal, ranked_facts)] if open_items else []
    plain = [" ".join(keywords(q)[:MAX_ITEM_KEYWORDS]) for q in items]
    feedback = _feedback(items, ranked_facts)
    seen = {_key(q) for q in done}
    queries: list[str] = []
    for query in (*hops, *bridges, *asks, *topics, *plain, *feedback):
        if query and _key(query) not in seen:
            seen.add(_key(query))
            queries.append(query)
    return queries[:count]


def _asked_topic(question: str) -> str:
    """What a question of several sentences asks, on its own: the statements before its last
    sentence lead to the first page (the goal's search matched them), and the asking sentence,
    which refers back to what they describe ("the WSGI toolkit that provides this debugger"), says
    what the next page holds. Empty for a question of one sentence."""
    stated = stated_then_asked(question)
    return topic(stated[1]) if stated else ""


def stated_then_asked(question: str) -> tuple[str, str] | None:
    """A question's own words (without the context decomposition added in parentheses) and its
    asking sentence, when it states before it asks; None for a question of one sentence."""
    own = question.split(" (", 1)[0]
    asking = asking_sentence(own)
    return None if asking.strip() == own.strip() else (own, asking)


BRIDGE_WORDS = 3
STATEMENT_MATCH = 0.3
_NAME_LIKE = re.compile(r"\w[._]\w|[a-z][A-Z]")  # of a keyword, which never holds "()"
# Words of a sentence's frame, never the name it carries
_GLUING = (
    "if not no so all any each every some more most less very only just however therefore thus "
    "otherwise while whether either neither nor both because exists exist possible instead use used "
    "using new old now always never often usually"
)
_GLUE = frozenset(_GLUING.split())


def statement_terms(text: str) -> frozenset[str]:
    """The terms a statement is matched by: its query terms, a single character aside."""
    return frozenset(t for t in query_terms(text) if len(t) > 1)


def _statement_hop(question: str, facts: Sequence[Fact]) -> str:
    """For a question that states, then asks: the words of the fact that best matches its statement
    which the question does not say, joined to what it asks. The statement describes the first page
    ("Click uses a standard-library module to make better suggestions"); the sentence there that says
    it names what the question leaves unnamed ("use difflib to make better suggestions"), and the
    search engine weighs a rare word like that most (``_bridge_words``). Empty for a question of one
    sentence, or when no fact says a ``STATEMENT_MATCH`` share of the statement's terms."""
    stated = stated_then_asked(question)
    if stated is None:
        return ""
    own, asking = stated
    statement = statement_terms(own[: own.rfind(asking)] or own)
    if not statement:
        return ""
    best, share = None, STATEMENT_MATCH
    for fact in facts:
        held = len(statement & set(terms(fact.evidence))) / len(statement)
        if held > share:
            best, share = fact, held
    if best is None:
        return ""
    said = {stem(w.lower()) for w in keywords(question)}
    new = _bridge_words(best.evidence, said, facts)
    return " ".join([*new, topic(asking)]) if new else ""


def _bridge_words(evidence: str, said: set[str], facts: Sequence[Fact]) -> list[str]:
    """Up to ``BRIDGE_WORDS`` words of ``evidence`` the question does not say, names first: a numbered
    proposal whose number the question never gives ("PEP 451" for "a particular PEP"), a dotted,
    snake-case or mixed-case name, or a word no common English has ("netrc" in "the user's netrc
    file", ``vocabulary``), then a word other facts hold too (what the pages keep naming), then the
    sentence's order. A dotted name also gives its first part, the module a search
    engine knows as a word of its own ("distutils" of "distutils.sysconfig.get_config_var"), and a
    dotted version is a name ("3.11" for "a Python version that was still in beta"); a bare number
    is never one."""
    held = Counter(w for fact in facts for w in set(keywords(fact.evidence)))
    ranks: dict[str, tuple[bool, int, int]] = {}  # (not a name, -facts holding it, position)
    for numbered in _IDENTIFIERS[0].findall(evidence):  # "PEP 451": the proposal a question leaves unnamed
        if not set(re.findall(r"\d+", numbered)) <= said:
            ranks.setdefault(numbered, (False, 0, len(ranks)))
    for word in keywords(evidence):
        if word.lower() in FRAME_WORDS or word.lower() in _GLUE or word.isdigit():
            continue
        head = word.split(".", 1)[0]
        forms = [head, word] if head != word and len(head) > 2 else [word]
        rank = (not _NAME_LIKE.search(word) and is_common(word), -held[word], len(ranks))
        for form in forms:  # a dotted name's module ranks as the name
            if stem(form.lower()) not in said:
                ranks.setdefault(form, rank)
    ranked = sorted(ranks, key=lambda w: ranks[w])  # stable: the module before its name
    return ranked[:BRIDGE_WORDS]


def _multi_hop(items: Sequence[str], facts: Sequence[Fact], goal: str) -> list[str]:
    """Per open question, the names its best facts hold that neither it nor the goal says, best first:
    a name counts with the confidence of the best fact that holds it (then how many facts do), so
    one strong fact's "PostgreSQL" outweighs version numbers scattered over weak ones. A version
    string is a hop only for a question about a version or release ("when was that version
    released"); elsewhere it is the answer to another question more often than a lead, and counts
    at ``VERSION_HOP_WEIGHT``. Only a question that leans on another's subject (decomposition gave it
    its context in parentheses: "that other engine", "the PEP", "it") takes a hop, or the goal when
    it is the only question (it leans on nothing, but only facts can say what it names). The hop's
    words are those of the sentence that asks, never of the statements before it, which the first
    page matched already. A question about a numbered version of what it leans on ("which command
    did version 15 of the first one it names add") searches that version of the name
    ("PostgreSQL 15"): the number alone is no subject (``topic``), joined to a name it is."""
    weight: dict[str, tuple[float, int]] = {}
    for fact in facts:
        for name in identifiers(fact.evidence):
            best, count = weight.get(name, (0.0, 0))
            weight[name] = (max(best, fact.confidence), count + 1)
    per_item: list[list[str]] = []
    for question in items:
        if " (" not in question and question != goal:
            continue  # a part that names its own subject: no fact of another part's stands in for it
        asked = f"{question} {goal}".lower()
        own = asking_sentence(question.split(" (", 1)[0])  # without the context decomposition added
        versions = 1.0 if _ASKS_OF_A_VERSION.search(own) else VERSION_HOP_WEIGHT

        def score(name: str, versions: float = versions) -> tuple[float, int, str]:
            factor = versions if _VERSION.fullmatch(name) else 1.0
            return (-weight[name][0] * factor, -weight[name][1], name)

        fresh = [n for n in sorted(weight, key=score) if n.lower() not in asked][:HOPS_PER_ITEM]
        # the name stands in for the context decomposition added: "PostgreSQL" answers "that other
        # database", so the query is the name and the question's own words
        subject = topic(own).split()[: MAX_TOPIC_WORDS - 1] or keywords(own)[: MAX_TOPIC_WORDS - 1]
        # "version 15 of the first one it names": the hop is that version of the name ("PostgreSQL 15")
        numbered = _NUMBERED.search(own)
        number = [numbered.group(1)] if numbered else []
        per_item.append([" ".join([n, *([] if _VERSION.fullmatch(n) else number), *subject]) for n in fresh])
    queries: list[str] = []
    for rank in range(HOPS_PER_ITEM):  # every question's first hop before any question's second
        queries += [mine[rank] for mine in per_item if rank < len(mine)]
    return queries


def asking_sentence(question: str) -> str:
    """The sentence of ``question`` that asks (its last question), without the statements before it:
    in "Django 3.2.9 added support for a new Python version. Which flag did that version add to
    zip()?" the first page matched the statement already, and the hop is what the question asks."""
    sentences = question_sentences(question)
    asking = [s for s in sentences if s.rstrip().endswith("?")]
    return (asking or sentences)[-1]


def _feedback(items: Sequence[str], facts: Sequence[Fact]) -> list[str]:
    if not facts:
        return []
    counts = Counter(w for f in facts[:3] for w in keywords(f.evidence) if not w.isdigit())
    queries: list[str] = []
    for question in items:
        own = {w.lower() for w in keywords(question)}
        extra = [w for w, _ in counts.most_common() if w.lower() not in own][:FEEDBACK_TERMS]
        if extra:
            queries.append(" ".join([*keywords(question)[: MAX_ITEM_KEYWORDS - len(extra)], *extra]))
    return queries


def _key(query: str) -> str:
    return " ".join(sorted(query.lower().split()))
