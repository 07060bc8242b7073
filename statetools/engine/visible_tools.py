"""The tools one run shows now, in the order the model sees them, and what was last
handed out.

A :class:`~statetools.engine.scheduler.Scheduler` owns one :class:`VisibleTools`:
it is the only holder of its containers. A fresh run starts from the graph's shared
start (a read-only mapping, the same for every fresh run) and keeps only its own
changes (:class:`~statetools.engine.overlay.Overlay`).

>>> ping, pong = (Tool.create(n, n.title(), lambda: "ok") for n in ("ping", "pong"))
>>> visible = VisibleTools()
>>> visible.start({"ping": ping})
>>> visible.show("pong", pong); visible.hide("ping")
>>> list(visible), visible.shown().names
(['pong'], ('pong',))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from statetools.engine.overlay import Overlay
from statetools.engine.shown import Shown
from statetools.engine.tool_order import ToolOrder
from statetools.tools.tool import BaseTool

__all__ = ["VisibleTools"]

_NOTHING: Mapping[str, BaseTool] = {}


class VisibleTools(Overlay[BaseTool]):
    """The visible tools by name, in order (read as a mapping; change them only with
    the methods below), with the :class:`Shown` last handed out: the same object
    until a tool shows, hides or changes form.

    >>> ping = Tool.create("ping", "Ping", lambda: "pong")
    >>> visible = VisibleTools()
    >>> visible.start({"ping": ping})
    >>> visible.shown() is visible.shown(), "ping" in visible
    (True, True)
    """

    __slots__ = ("_order", "handed")

    def __init__(self) -> None:
        super().__init__(_NOTHING)
        self._order = ToolOrder()
        self.handed: Shown | None = None
        """What :meth:`shown` handed out last; None after any change (read it, never set it)."""

    def start(
        self,
        tools: Mapping[str, BaseTool] | Iterable[tuple[str, BaseTool]],
        positions: Mapping[str, int] | None = None,
    ) -> None:
        """Show ``tools`` as a run starts: with ``positions``, ``tools`` is the graph's
        shared start, read and never written (this run keeps only its changes);
        otherwise the tools are copied in, in order."""
        self.clear()
        if positions is not None:
            assert isinstance(tools, Mapping)
            self._base = tools
            self._order.start((), positions)
        else:
            self.update(tools)
            self._order.start(self)
        self.handed = None

    def keep_shown(self, shown: Shown) -> None:
        """Hand out ``shown`` (what a fresh run of the graph first shows) until a change."""
        self.handed = shown

    def show(self, name: str, tool: BaseTool) -> None:
        """Make ``name`` visible: back in its place if the model still has it in view."""
        self[name] = tool
        self.handed = None
        if self._order.show(name):  # rare: reorder in place
            tools = dict(self)
            self.clear()
            self.update((n, tools[n]) for n in self._order.sorted(tools))

    def hide(self, name: str) -> None:
        """Take ``name`` out of view."""
        del self[name]
        self.handed = None
        self._order.hide(name)

    def rebind(self, name: str, tool: BaseTool) -> None:
        """``name`` is shown as ``tool`` from now on, in its place."""
        self[name] = tool
        self.handed = None

    def move_to_end(self, name: str, tool: BaseTool) -> None:
        """``name`` is shown as ``tool`` from now on, after every other tool (a
        facade's short form swapped for the full one)."""
        del self[name]
        self[name] = tool
        self._order.renumber(name)
        self.handed = None

    def settle(self) -> None:
        """A request is sent now (see :meth:`ToolOrder.settle`)."""
        self._order.settle()

    def shown(self, build: Callable[[Shown], Shown] | None = None) -> Shown:
        """What to hand out: the same object until a change; ``build`` makes it from
        the visible tools when there was a change (code mode's view, say)."""
        shown = self.handed
        if shown is None:
            shown = Shown.of(self.values())
            shown = self.handed = build(shown) if build is not None else shown
        return shown
