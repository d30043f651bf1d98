"""When a loaded page has settled: its scripts have nothing left to do, or its network is idle.

Playwright's "networkidle" waits for 500 ms without a request, so every page paid half a second
after "load", static ones too (0.52 s of a 0.8 s fetch on the offline web). A script-rendered page
needs some wait, though: its content may come from a request, or a timer, after "load".

So every page of the fetching context runs ``ACTIVITY`` first (an init script): it counts the
page's pending short timers and fetch/XHR requests and notes when the document last changed. A
page has settled when nothing is pending, no request is in flight as Chromium sees them (script
and image tags a script inserted included) and the document has not changed for ``QUIET_S``,
or when the network has been idle as before, whichever comes first: never later than
"networkidle". A page's script can lie to the counters; it can only hurry its own snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from playwright.async_api import Error, Page, Request

QUIET_S = 0.1  # the document unchanged this long, with nothing pending: settled
POLL_S = 0.04
TIMER_MS = 2_000  # timers up to this long are waited for (longer ones: the network-idle bound)

ACTIVITY = """
(() => {
  const TIMER_MS = ${timer_ms};
  if (window.__fathomActivity) return;
  const state = { timers: new Set(), requests: 0, changed: performance.now() };
  const touch = () => { state.changed = performance.now(); };
  const setTimer = window.setTimeout, clearTimer = window.clearTimeout;
  window.setTimeout = function (handler, delay, ...rest) {
    if (typeof handler !== "function" || !(Number(delay) <= TIMER_MS)) {
      return setTimer(handler, delay, ...rest);
    }
    const id = setTimer(function () {
      state.timers.delete(id);
      touch();
      return handler.apply(this, arguments);
    }, delay, ...rest);
    state.timers.add(id);
    return id;
  };
  window.clearTimeout = function (id) { state.timers.delete(id); return clearTimer(id); };
  const begin = () => { state.requests += 1; touch(); };
  const end = () => { state.requests -= 1; touch(); };
  if (window.fetch) {
    const fetchOriginal = window.fetch;
    window.fetch = function () {
      begin();
      return fetchOriginal.apply(this, arguments).finally(end);
    };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function () {
    begin();
    this.addEventListener("loadend", end, { once: true });
    return send.apply(this, arguments);
  };
  new MutationObserver(touch).observe(document, {
    subtree: true, childList: true, characterData: true, attributes: true,
  });
  Object.defineProperty(window, "__fathomActivity", { value: state });
})();
""".replace("${timer_ms}", str(TIMER_MS))

SNAPSHOT = """() => {
  const state = window.__fathomActivity;
  return state ? [state.timers.size + state.requests, performance.now() - state.changed] : null;
}"""


class InFlight:
    """The requests of one page that Chromium has started and not finished, while attached."""

    def __init__(self, page: Page) -> None:
        self._page = page
        self._open: set[Request] = set()
        self._handlers = (
            ("request", self._started),
            ("requestfinished", self._ended),
            ("requestfailed", self._ended),
        )
        for event, handler in self._handlers:
            page.on(event, handler)  # type: ignore[call-overload]

    def _started(self, request: Request) -> None:
        self._open.add(request)

    def _ended(self, request: Request) -> None:
        self._open.discard(request)

    @property
    def count(self) -> int:
        return len(self._open)

    def detach(self) -> None:
        for event, handler in self._handlers:
            self._page.remove_listener(event, handler)


async def settle(page: Page, in_flight: InFlight, limit_s: float) -> str:
    """Wait until ``page`` has settled (see the module's doc), ``limit_s`` at most; how it ended:
    "quiet" (nothing pending), "network idle" or "limit"."""
    idle = asyncio.ensure_future(page.wait_for_load_state("networkidle", timeout=limit_s * 1000))
    quiet = asyncio.ensure_future(_quiet(page, in_flight, time.monotonic() + limit_s))
    try:
        done, _ = await asyncio.wait({idle, quiet}, timeout=limit_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (idle, quiet):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Error):
                await task
    if quiet in done and not quiet.cancelled() and quiet.exception() is None and quiet.result():
        return "quiet"
    if idle in done and not idle.cancelled() and idle.exception() is None:
        return "network idle"
    return "limit"


async def _quiet(page: Page, in_flight: InFlight, deadline: float) -> bool:
    """True once nothing is pending; False at ``deadline`` (where the page cannot say: the network-idle
    bound decides)."""
    while time.monotonic() < deadline:
        try:
            snapshot = await page.evaluate(SNAPSHOT)
        except Error:  # the page navigates on (a redirect by script or meta refresh): not settled
            await asyncio.sleep(POLL_S)
            continue
        if snapshot is None:  # no counters (the init script did not run here)
            break
        pending, since_ms = snapshot
        if pending == 0 and since_ms >= QUIET_S * 1000 and in_flight.count == 0:
            return True
        await asyncio.sleep(POLL_S)
    await asyncio.sleep(max(0.0, deadline - time.monotonic()))
    return False
