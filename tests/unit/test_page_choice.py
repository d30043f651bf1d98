"""The page-choice score of a later round: what the search results say of a waiting page."""

from __future__ import annotations

from fathom_ray.judges.evidence.terms import query_terms
from fathom_ray.research.page_choice import (
    FEATURES,
    WEIGHTS,
    Signals,
    asked_terms,
    asked_texts,
    choose,
    named_by_facts,
    said_by,
    score,
    snippet_cover,
)
from fathom_ray.web.urls import file_name


def signals(**given: object) -> Signals:
    plain: dict[str, object] = {
        "goal_rank": None,
        "other_ranks": (),
        "site_read": False,
        "named": False,
        "snippet_cover": 0.0,
    }
    return Signals(**{**plain, **given})  # type: ignore[arg-type]


def test_every_signal_has_its_weight() -> None:
    assert len(FEATURES) == len(WEIGHTS) == len(signals().vector())


def test_the_goals_results_keep_their_order_among_themselves() -> None:
    ranked = {f"g{n}": signals(goal_rank=n, site_read=True) for n in range(1, 6)}
    assert choose(ranked, 3) == ["g1", "g2", "g3"]


def test_a_page_several_queries_rank_first_with_a_matching_snippet_beats_the_goals_tail() -> None:
    tail = signals(goal_rank=7, site_read=True)
    pointed = signals(other_ranks=(1, 1), named=True, snippet_cover=0.8)
    assert score(pointed) > score(tail)
    # each signal pulls its way: without the snippet's match, or found by one query far down, it loses
    assert score(signals(other_ranks=(1, 1), named=True)) < score(pointed)
    assert score(signals(other_ranks=(8,), named=True, snippet_cover=0.8)) < score(pointed)
    assert choose({"tail": tail, "pointed": pointed}, 1) == ["pointed"]


def test_snippet_cover_is_the_best_share_of_one_questions_terms_one_snippet_holds() -> None:
    questions = asked_terms(["What is the DROP COLUMN syntax of SQLite used for?", "Who wrote the proposal?"])
    assert snippet_cover(["The DROP COLUMN syntax is used to remove a column in SQLite"], questions) == 1.0
    half = snippet_cover(["DROP COLUMN is rare"], questions)
    assert 0.0 < half < 1.0
    assert snippet_cover(["nothing of the kind"], questions) == 0.0
    assert snippet_cover([], questions) == 0.0
    assert snippet_cover(["a proposal"], asked_terms(["What?"])) == 0.0  # question words alone ask nothing


def test_a_sites_index_loses_to_a_page_of_the_same_standing() -> None:
    # an index matches every query about its site (many queries find it, its snippet lists the
    # topics) and rarely states an answer: with all else equal, the topic's own page is read first
    found = {"goal_rank": 4, "other_ranks": (2, 1), "snippet_cover": 0.4}
    ranked = {"index": signals(hub=True, **found), "page": signals(**found)}
    assert choose(ranked, 1) == ["page"]
    assert score(signals(hub=True, **found)) < score(signals(**found))


def test_a_question_that_states_then_asks_counts_its_asking_sentence_alone() -> None:
    # the statement brought the first page; the page that answers says what is asked, so a snippet
    # that holds the asking sentence's terms covers it whole, however little of the statement it holds
    question = (
        "The Go tour's concurrency lesson uses a standard-library package for mutual exclusion. "
        "Which method of that package's lock type releases it?"
    )
    answer = "Unlock releases the package's lock type: the method to call when done"
    asked = asked_terms([question])
    assert len(asked) == 2
    assert snippet_cover([answer], asked) == 1.0
    assert snippet_cover([answer], [frozenset().union(*asked)]) < 0.5
    # a question of one sentence counts once; the context decomposition adds is not a sentence of it
    assert len(asked_terms(["Which method of the lock type releases it (Go tour concurrency lesson)?"])) == 1
    # the asking sentence is the question's last question, as the judge's queries take it, even when
    # a remark follows it
    remark = asked_terms([question + " Answer with the name."])
    assert frozenset(query_terms("Which method of that package's lock type releases it?")) in remark


def test_a_snippet_that_says_what_is_asked_in_other_words_pulls_its_page_forward() -> None:
    # two pages of the same standing, neither snippet holding the question's words: the one whose
    # title and snippet mean what the question asks (the embedder's cosine) is read first
    found = {"other_ranks": (1,), "snippet_cover": 0.0}
    ranked = {"unrelated": signals(semantic=0.2, **found), "paraphrase": signals(semantic=0.6, **found)}
    assert choose(ranked, 1) == ["paraphrase"]
    # and the cosine counts against the pool's best: the same cosine far below the best waiting
    # page's (a question every snippet matches) pulls less than the best one of a pool that matches little
    assert score(signals(semantic=0.4, semantic_gap=-0.3, **found)) < score(signals(semantic=0.4, **found))
    question = "Click 8.1.0 removed its terminal size helper. What fallback size does its replacement use?"
    assert asked_texts([question]) == [question, "What fallback size does its replacement use?"]
    assert asked_texts(["Who wrote PEP 572?", "Who wrote PEP 572?"]) == ["Who wrote PEP 572?"]


def test_a_page_named_after_what_a_kept_fact_says_is_marked() -> None:
    goal = "Requests reads credentials from a file when no auth is given. Which function parses it?"
    said = ["Requests reads the credentials for the URL's hostname from the user's netrc file."]
    assert file_name("http://docs.python.test/3.11/library/netrc.html") == "netrc"
    assert file_name("http://git-scm.test/docs/git-fetch") == "git-fetch"
    assert named_by_facts("http://docs.python.test/3.11/library/netrc.html", goal, said_by(said))
    # "git-fetch" is said as "git fetch"
    assert named_by_facts(
        "http://git-scm.test/docs/git-fetch.html", "Which option?", said_by(["Run git fetch --all."])
    )
    # what the goal says already is no hop; nor is a name no fact says, or one too short to tell
    assert not named_by_facts("http://requests.test/en/latest/user/authentication.html", goal, said_by(said))
    assert not named_by_facts(
        "http://requests.test/auth.html", "Which auth is used?", said_by(["auth failed"])
    )
    assert not named_by_facts("http://docs.python.test/3.11/library/shutil.html", goal, said_by(said))
    assert not named_by_facts("http://docs.python.test/3.11/library/io.html", goal, said_by(["io is not it"]))
    assert not named_by_facts("http://docs.python.test/3.11/library/netrc.html", goal, said_by([]))
    # a common word is no name: "the changes" says nothing of changes.html
    assert not named_by_facts(
        "http://flask.test/en/2.2.x/changes.html", goal, said_by(["It brings important changes."])
    )


def test_a_page_a_fact_names_outscores_one_of_the_same_standing() -> None:
    plain = signals(other_ranks=(2,), snippet_cover=0.4)
    assert score(signals(other_ranks=(2,), snippet_cover=0.4, fact_named=True)) > score(plain)
