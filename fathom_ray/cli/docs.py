"""``fathom docs``: add, list, remove and search the user's own documents.

These commands open the document store in this process (Qdrant Edge under
``FATHOM_DATA_DIR/docstore``, or the server of ``FATHOM_QDRANT__URL``) and embed with the packaged
sentence embedder; ``add --ray`` (or ``--address``) ingests as Ray tasks instead, with the store and
the embedder in actors. When an engine is kept for the data folder (`fathom up`, `fathom serve`), its
document store actor owns the store: every command here (and ``ask``) attaches and works through it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from fathom_ray.adapters.document_points import MODES
from fathom_ray.cli.running import fail, ray_error_cause, settings_or_exit, start_ray
from fathom_ray.cli.tables import table
from fathom_ray.documents.models import AddOutcome
from fathom_ray.errors import FathomError, InvalidRequestError
from fathom_ray.operations.engine_file import EngineFile, read_engine
from fathom_ray.settings import Settings, ingest_embedder

if TYPE_CHECKING:  # the store, the models and ask load only for the command that uses them
    from fathom_ray.adapters.document_stores import DocumentStoreImpl
    from fathom_ray.documents.ask import AskResult
    from fathom_ray.documents.ingest import Progress as IngestProgress

logger = logging.getLogger("fathom_ray.ask")
docs_app = typer.Typer(help="Your own documents: add, list, remove, search.", no_args_is_help=True)
console = Console()
notices = Console(stderr=True)


def open_store(settings: Settings) -> DocumentStoreImpl:
    """The store, opened here; a one-time migration says what it does on stderr."""
    from fathom_ray.adapters.document_stores import open_document_store  # noqa: PLC0415

    return open_document_store(settings, lambda message: notices.print(f"[yellow]{escape(message)}[/]"))


def _settings() -> Settings:
    return settings_or_exit(console)


def _notice(line: str) -> None:
    """A line about the engine used, on stderr (stdout may be --json)."""
    notices.print(line, markup=False)


@dataclass(frozen=True, slots=True)
class DocumentParts:
    """The documents, an embedder and (for ``ask``) a judge: in this process, or a kept engine's."""

    documents: Any  # async: list_documents, remove, search, chunk, document
    embedder: Any  # async embed
    judge: Any = None


@contextmanager
def document_parts(settings: Settings, judge: bool = False) -> Iterator[DocumentParts]:
    """The documents for the block: through the kept engine's actors when one runs for this data
    folder (it owns the store), else the store opened in this process."""
    found = read_engine(settings.data_dir)
    if found is not None:
        from actors.directory import Remote, RemoteJudge  # noqa: PLC0415 (Ray only when attaching)
        from fathom_ray.cli.attach import attached_engine  # noqa: PLC0415

        with attached_engine(found, settings, _notice) as engine:
            handles = engine.handles
            yield DocumentParts(
                Remote(handles.documents), Remote(handles.embedder), RemoteJudge(handles.judge)
            )
        return
    from fathom_ray.adapters.llm_backends import ThreadedEmbedder, build_judge  # noqa: PLC0415
    from fathom_ray.documents.service import Documents  # noqa: PLC0415

    store = open_store(settings)
    try:
        embedder = ThreadedEmbedder(settings.embedder)
        documents = Documents(store, embedder, settings.docs, settings.data_dir / "uploads")
        local_judge = build_judge(settings.llm, settings.embedder) if judge else None
        if local_judge is not None:
            asyncio.run(local_judge.start())
        try:
            yield DocumentParts(documents, embedder, local_judge)
        finally:
            if local_judge is not None:
                asyncio.run(local_judge.close())
    finally:
        store.close()


def _fail(error: Exception) -> NoReturn:
    fail(console, error)


@docs_app.command("add")
def add(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (.txt .md .html .pdf).")],
    on_ray: Annotated[
        bool, typer.Option("--ray", help="Ingest as Ray tasks (one per file) on a local Ray or --address.")
    ] = False,
    address: Annotated[
        str | None, typer.Option(help="An existing Ray cluster to ingest on (implies --ray).")
    ] = None,
) -> None:
    """Add files (folders recursively); an unchanged file is skipped, a changed one replaced."""
    settings = _settings()
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
    )
    started = time.monotonic()
    embedded = 0
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("adding", total=None, rate="")

        def advance(outcome: AddOutcome, number: int, total: int) -> None:
            nonlocal embedded
            if outcome.status in ("added", "replaced") and outcome.document is not None:
                embedded += outcome.document.chunks
            rate = f"{embedded / max(time.monotonic() - started, 1e-6):.1f} chunks/s"
            bar.update(task, completed=number, total=total, description=Path(outcome.path).name, rate=rate)

        try:
            kept = None if address else read_engine(settings.data_dir)
            if kept is not None:
                outcomes = add_on_engine(paths, settings, kept, advance)
            elif on_ray or address:
                outcomes = add_on_ray(paths, settings, address, advance)
            else:
                outcomes = add_here(paths, settings, advance)
        except FathomError as e:
            _fail(e)
    for outcome in outcomes:
        if outcome.status == "failed":
            console.print(f"[red]failed[/red]     {outcome.path}: {outcome.error}")
        elif (doc := outcome.document) is not None:
            flags = f" [yellow]flagged: {', '.join(doc.flags)}[/yellow]" if doc.flags else ""
            console.print(f"{outcome.status:<10} {doc.id}  {doc.chunks} chunks  {outcome.path}{flags}")
    if not outcomes:
        _fail(FathomError("no supported files under the paths given (.txt .md .html .pdf)"))
    if embedded:
        took = time.monotonic() - started
        console.print(
            f"embedded and stored {embedded} chunks in {took:.1f} s ({embedded / took:.1f} chunks/s)"
        )
    if all(o.status == "failed" for o in outcomes):
        raise typer.Exit(code=1)


def add_here(paths: list[Path], settings: Settings, progress: IngestProgress) -> list[AddOutcome]:
    """Ingestion in this process: the store opened here, the packaged embedder on this CPU."""
    from fathom_ray.adapters.llm_backends import ThreadedEmbedder  # noqa: PLC0415
    from fathom_ray.documents.ingest import add_paths  # noqa: PLC0415

    store = open_store(settings)
    try:
        return asyncio.run(
            add_paths(paths, store, ThreadedEmbedder(ingest_embedder(settings)), settings.docs, progress)
        )
    finally:
        store.close()


def add_on_engine(
    paths: list[Path], settings: Settings, found: EngineFile, progress: IngestProgress
) -> list[AddOutcome]:
    """Ingestion as Ray tasks on the kept engine, written by its document store actor."""
    from fathom_ray.cli.attach import attached_engine  # noqa: PLC0415

    with attached_engine(found, settings, _notice) as engine:
        handles = engine.handles
        return _ingest(paths, settings, progress, lambda: (handles.documents, handles.embedder))


def add_on_ray(
    paths: list[Path], settings: Settings, address: str | None, progress: IngestProgress
) -> list[AddOutcome]:
    """Ingestion as Ray tasks: an Embedder and a DocumentStore actor of their own, then one task per file."""
    start_ray(address)
    import ray  # noqa: PLC0415

    from actors.ingestion import start_document_parts  # noqa: PLC0415

    started: list[tuple[Any, Any]] = []

    def parts() -> tuple[Any, Any]:
        started.append(start_document_parts(settings))
        return started[-1]

    try:
        return _ingest(paths, settings, progress, parts)
    finally:
        for documents, embedder in started:
            _release(documents, embedder)
        ray.shutdown()


def _release(documents: Any, embedder: Any) -> None:
    """Close the store actor's folder before this command leaves the cluster: an actor the driver
    owned dies some time after the driver does, and the next command must find the folder free."""
    import ray  # noqa: PLC0415

    with contextlib.suppress(ray.exceptions.RayError):  # a lost actor holds nothing
        ray.get(documents.stop.remote(), timeout=60)
    for handle in (documents, embedder):
        ray.kill(handle)


def _ingest(
    paths: list[Path], settings: Settings, progress: IngestProgress, parts: Callable[[], tuple[Any, Any]]
) -> list[AddOutcome]:
    """One Ray task per file, on the document store and embedder actors ``parts`` gives; a Ray
    error is a ``FathomError``."""
    import ray  # noqa: PLC0415

    from actors.ingestion import ingest_on_ray  # noqa: PLC0415

    try:
        documents, embedder = parts()
        return ingest_on_ray(paths, documents, embedder, settings.docs, progress=progress)
    except ray.exceptions.RayError as e:
        raise FathomError(f"ingestion failed: {ray_error_cause(e)}") from e


@docs_app.command("ls")
def list_documents() -> None:
    """List the documents: id, title, chunks, flags, source."""
    with document_parts(_settings()) as parts:
        documents = asyncio.run(parts.documents.list_documents())
    if not documents:
        console.print("no documents (add some with `fathom docs add PATH`)")
        return
    rows = [(d.id, d.title, str(d.chunks), ", ".join(d.flags), d.source) for d in documents]
    console.print(table(("id", "title", "chunks", "flags", "source"), rows))


@docs_app.command("rm")
def remove(
    document_ids: Annotated[list[str], typer.Argument(help="Ids as `fathom docs ls` shows them.")],
) -> None:
    """Remove documents and every chunk of theirs."""
    with document_parts(_settings()) as parts:
        missing = [i for i in document_ids if not asyncio.run(parts.documents.remove(i))]
    for document_id in document_ids:
        console.print(f"{'no such document' if document_id in missing else 'removed'} {document_id}")
    if missing:
        raise typer.Exit(code=1)


@docs_app.command("search")
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    limit: Annotated[int, typer.Option(min=1, max=100)] = 5,
    mode: Annotated[str, typer.Option(help=f"One of {', '.join(MODES)}.")] = "hybrid",
) -> None:
    """Search the documents' chunks: hybrid (dense and BM25 fused by RRF), dense or sparse."""
    if mode not in MODES:
        _fail(FathomError(f"--mode must be one of {', '.join(MODES)}, got {mode!r}"))
    with document_parts(_settings()) as parts:
        vector = asyncio.run(parts.embedder.embed([query]))[0]
        hits = asyncio.run(parts.documents.search(query, vector, limit, mode))
        empty = not hits and not asyncio.run(parts.documents.list_documents())
    if not hits:
        console.print("no documents (add some with `fathom docs add PATH`)" if empty else "nothing matches")
    for n, hit in enumerate(hits, start=1):
        heading = f" / {hit.chunk.heading}" if hit.chunk.heading else ""
        console.print(f"[bold]{n}. {hit.title}{heading}[/bold]  {hit.chunk.source}  ({hit.score:.3f})")
        console.print(f"   {' '.join(hit.chunk.text.split())[:300]}")


def ask_command(
    question: Annotated[str, typer.Argument(help="A question (up to 1,000 characters).")],
    reflect: Annotated[
        bool, typer.Option(help="Follow-up searches: names no passage holds, and leads the judge reads.")
    ] = True,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as one JSON object.")] = False,
    conversation: Annotated[
        str | None, typer.Option(help="Ask within a conversation (its last 6 turns are kept).")
    ] = None,
) -> None:
    """Answer a question from your documents, every claim citing a numbered passage."""
    from fathom_ray.documents.answering import line_json  # noqa: PLC0415
    from fathom_ray.documents.ask import ask  # noqa: PLC0415
    from fathom_ray.documents.conversations import Conversations, Turn  # noqa: PLC0415

    settings = _settings()
    conversations = Conversations(settings.data_dir / "conversations")
    try:
        history = [t.question for t in conversations.turns(conversation)] if conversation else []
    except InvalidRequestError as e:
        _fail(e)
    with document_parts(settings, judge=True) as parts:
        if not asyncio.run(parts.documents.list_documents()):
            _fail(FathomError("no documents to ask (add some with `fathom docs add PATH`)"))
        try:
            result = asyncio.run(
                ask(question, parts.documents, parts.embedder, parts.judge, reflect=reflect, history=history)
            )
        except InvalidRequestError as e:
            _fail(e)
    if conversation:
        conversations.add(conversation, Turn(result.question, result.answer))
    logger.info(json.dumps(trace_record(result)))
    if json_out:
        answered = {"answer": result.answer, "answers": [line_json(line) for line in result.answers]}
        console.print_json(json.dumps(trace_record(result) | answered))
        return
    _print_answer(result)


def trace_record(result: AskResult) -> dict[str, object]:
    """The request's trace as one JSON-ready object (also written to the log as one line)."""
    return {
        "trace_id": result.trace_id,
        "question": result.question,
        "parts": list(result.parts),
        "follow_ups": list(result.follow_ups),
        "stages_s": result.stages_s,
        "tokens_in": result.usage.prompt_tokens,
        "tokens_out": result.usage.completion_tokens,
        "cost_usd": result.usage.cost_usd,
        "passages": [p.chunk.source for p in result.passages],
        "citations": [{"passage": c.number, "evidence": c.evidence} for c in result.citations],
        "judge_failure": result.judge_failure,
        "asked_as": result.asked_as,
    }


def _print_answer(result: AskResult) -> None:
    """The answer first (each claim with its [n]), then each cited passage's quote once, then the sources."""
    console.print(f"[bold]{escape(result.answer)}[/bold]")
    for cited in result.citations:
        console.print(escape(f"  [{cited.number}] {' '.join(cited.evidence.split())}"))
    console.print("sources:")
    for n, passage in enumerate(result.passages, start=1):
        heading = f" / {passage.chunk.heading}" if passage.chunk.heading else ""
        console.print(escape(f"  [{n}] {passage.title}{heading}  {passage.chunk.source}"))
    stages = ", ".join(f"{k} {v:.2f} s" for k, v in result.stages_s.items())
    console.print(f"trace {result.trace_id}: {stages}")
