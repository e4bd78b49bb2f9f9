"""The private Panel, Bokeh and param APIs the explainer relies on, one test each (and one of
pytest-xdist's, which the tests' own scheduling relies on).

pyproject.toml pins panel and bokeh to the minor versions these were checked on. When an
upgrade changes one of them, its test here fails with the place in the explainer that relies
on it, rather than a figure failing somewhere down the line. README "Developing" lists them.
"""

from __future__ import annotations

import inspect

import param
import pytest
from bokeh.document import Document


def relied_on(where: str) -> str:
    return f"the explainer relies on this in {where}: check it there before upgrading"


def test_a_components_properties_carry_its_esm_and_a_bundle_name():
    """base.FigureView._get_properties names the module as a bundle, so the page imports it untransformed."""
    from panel.models.esm import ReactiveESM

    from explainer.figures.binary import BinaryFigure

    assert "bundle" in ReactiveESM.properties(), relied_on("figures/base.py FigureView._get_properties")
    props = BinaryFigure().view._get_properties(Document())
    assert isinstance(props.get("esm"), str) and props["bundle"], relied_on(
        "figures/base.py FigureView._get_properties"
    )


def test_a_components_debounce_is_a_class_attribute_panel_reads():
    """base.FigureView sets _debounce = 0: Panel would otherwise wait 50 ms before applying a browser change."""
    from panel.reactive import Syncable

    assert isinstance(Syncable._debounce, int), relied_on("figures/base.py FigureView._debounce")
    assert "self._debounce" in inspect.getsource(Syncable), relied_on("figures/base.py FigureView._debounce")


@pytest.mark.parametrize(("cls", "hook"), [(param.List, "_validate"), (param.Integer, "_validate_value")])
def test_param_validates_through_the_hooks_our_parameter_types_extend(cls, hook):
    assert callable(getattr(cls, hook, None)), relied_on("figures/params.py")
    with pytest.raises(ValueError):
        from explainer.figures.params import Count

        class Probe(param.Parameterized):
            n = Count(default=1, bounds=(0, 3))

        Probe(n=True)


def test_bokehs_per_app_routes_name_panels_page_and_websocket_handlers():
    """server/patches.py use_explainer_handlers puts our subclasses in place of Panel's in Bokeh's per-app routes."""
    from bokeh.server.urls import per_app_patterns
    from panel.io.server import DocHandler, WSHandler

    handlers = [route[1] for route in per_app_patterns]
    for base in (DocHandler, WSHandler):
        assert any(isinstance(h, type) and issubclass(h, base) for h in handlers), relied_on(
            "server/patches.py use_explainer_handlers"
        )


def test_panel_makes_each_pages_static_route_with_the_handler_its_module_names():
    """server/patches.py use_explainer_static_files replaces panel.io.server.StaticHandler, read by create_static_handler."""
    import panel.io.server as panel_server

    assert isinstance(panel_server.StaticHandler, type), relied_on("server/patches.py use_explainer_static_files")
    assert "StaticHandler" in inspect.getsource(panel_server.create_static_handler), relied_on(
        "server/patches.py use_explainer_static_files"
    )


def test_bokehs_top_level_routes_serve_static_files_with_its_handlers():
    from bokeh.server.urls import toplevel_patterns
    from bokeh.server.views.multi_root_static_handler import MultiRootStaticHandler
    from bokeh.server.views.static_handler import StaticHandler

    handlers = [route[1] for route in toplevel_patterns]
    for base in (StaticHandler, MultiRootStaticHandler):
        assert any(isinstance(h, type) and issubclass(h, base) for h in handlers), relied_on(
            "server/patches.py use_explainer_static_files"
        )


def test_a_documents_template_variables_are_a_dict_panel_reads_dist_url_from():
    """server/sessions.py session_of points a websocket-made session's stylesheets at this server."""
    assert Document()._template_variables == {}, relied_on("server/sessions.py session_of")
    from panel.io.resources import LOCAL_DIST

    assert isinstance(LOCAL_DIST, str), relied_on("server/sessions.py session_of")


def test_panels_views_are_viewable_root_document_comm_and_notification_areas_keep_documents():
    """server/sessions.py _forget_notification_area unpacks state._views and empties an area's _documents."""
    import panel.viewable
    from panel.io.notifications import NotificationArea
    from panel.io.state import state

    assert isinstance(state._views, dict), relied_on("server/sessions.py _forget_notification_area")
    source = inspect.getsource(panel.viewable)
    assert "state._views[ref] = (root_view, root, doc, comm)" in source, relied_on(
        "server/sessions.py _forget_notification_area"
    )
    assert isinstance(NotificationArea()._documents, dict), relied_on("server/sessions.py _forget_notification_area")


def test_a_session_context_holds_its_document():
    from bokeh.server.contexts import BokehSessionContext

    assert "_document" in inspect.getsource(BokehSessionContext.__init__), relied_on(
        "server/sessions.py _forget_notification_area"
    )


def test_a_component_hands_the_pages_messages_to_handle_msg_and_sends_with_send_msg():
    """The workbench receives upload pieces in WorkbenchView._handle_msg and answers with _send_msg."""
    from panel.custom import ReactiveESM

    source = inspect.getsource(ReactiveESM._process_event)
    assert "self._handle_msg" in source, relied_on("workbench/view.py WorkbenchView._handle_msg")
    assert "ESMEvent" in inspect.getsource(ReactiveESM._send_msg), relied_on("workbench/view.py Workbench._message")


def test_bokehs_server_makes_its_http_server_by_the_module_name_we_replace():
    import bokeh.server.server

    source = inspect.getsource(bokeh.server.server)
    assert "HTTPServer(" in source and hasattr(bokeh.server.server, "HTTPServer"), relied_on(
        "server/patches.py use_explainer_http_server"
    )


def test_tornados_iostream_finds_a_read_position_from_its_buffer_and_regex():
    from tornado.iostream import IOStream

    source = inspect.getsource(IOStream.__mro__[1])
    for name in (
        "def _find_read_pos",
        "self._read_regex",
        "self._read_buffer_size",
        "self._read_buffer",
        "def _check_max_bytes",
    ):
        assert name in source, relied_on(f"server/http_server.py RequestStream ({name})")


def test_bokehs_websocket_handler_reads_with_its_receiver_and_answers_through_its_connection():
    from bokeh.server.connection import ServerConnection
    from bokeh.server.protocol_handler import ProtocolHandler
    from bokeh.server.session import ServerSession
    from bokeh.server.views.ws import WSHandler

    assert "self.receiver.consume" in inspect.getsource(WSHandler._receive), relied_on(
        "server/messages.py PageMessages"
    )
    for name in ("pull", "patch"):
        assert callable(getattr(ServerSession, name)), relied_on(
            f"server/messages.py PageMessages (ServerSession.{name})"
        )
    assert callable(ServerConnection.ok) and "protocol" in inspect.getsource(ServerConnection), relied_on(
        "server/messages.py PageMessages._error"
    )
    assert "ServerSession.pull" in inspect.getsource(ProtocolHandler), relied_on(
        "server/messages.py PageMessages._answer"
    )


def test_a_components_data_model_carries_its_state():
    """server/messages.py page_models finds each figure's state on its ReactiveESM model's ``data``."""
    from bokeh.document import Document
    from panel.models.esm import ReactiveESM

    from explainer.figures.binary import BinaryFigure

    figure = BinaryFigure()
    root = figure.view.get_root(Document())
    assert isinstance(root, ReactiveESM) and isinstance(root.data.state, dict), relied_on(
        "server/messages.py page_models"
    )


def test_numpy_has_the_switch_for_huge_pages_the_reader_turns_off():
    """formats.memory.small_pages turns numpy's huge pages off while a file is read (seconds of kernel time on 2 MB pages)."""
    import numpy as np

    switch = getattr(getattr(np, "_core", None), "multiarray", None)
    switch = getattr(switch, "_set_madvise_hugepage", None)
    if switch is None:  # numpy is not pinned, and the reader works on without it, only slower
        pytest.skip("numpy has no _set_madvise_hugepage: evaluation/formats/memory.py small_pages does nothing")
    previous = switch(False)
    assert isinstance(previous, bool), relied_on("evaluation/formats/memory.py small_pages")
    assert switch(previous) is False, relied_on("evaluation/formats/memory.py small_pages")


def test_bokehs_application_holds_the_secret_and_the_switch_a_websockets_token_is_checked_with():
    """websocket.py checks a token's signature (tokens.py) with the application's secret, when it signs sessions."""
    from bokeh.server.tornado import BokehTornado

    where = relied_on("server/websocket.py ExplainerWSHandler._handshake_refusal")
    source = inspect.getsource(BokehTornado)
    for name in ("secret_key", "sign_sessions"):
        assert f"def {name}(" in source, where


def test_bokehs_websocket_handler_keeps_its_token_and_opens_its_session_in_async_open():
    """websocket.py reads the handshake's token (``WSHandler._token``, set from the subprotocol) before
    Bokeh does, and makes a new session in its turn by wrapping ``_async_open(token)``."""
    from bokeh.server.views.ws import WSHandler as BokehWSHandler
    from panel.io.server import WSHandler

    where = relied_on("server/websocket.py ExplainerWSHandler (_token, _async_open)")
    assert "self._token = " in inspect.getsource(BokehWSHandler), where
    assert "self._token" in inspect.getsource(BokehWSHandler.open), where
    for handler in (BokehWSHandler, WSHandler):
        assert inspect.iscoroutinefunction(handler._async_open), where
        assert list(inspect.signature(handler._async_open).parameters) == ["self", "token"], where


def test_a_server_connection_holds_its_session_in_session_and_drops_it_when_detached():
    """messages.session_gone reads ServerConnection._session: None once Bokeh detaches a destroyed session."""
    from bokeh.protocol import Protocol
    from bokeh.server.connection import ServerConnection
    from bokeh.server.session import ServerSession

    session = ServerSession("s1", Document())
    connection = ServerConnection(Protocol(), None, None, session)
    assert connection._session is session, relied_on("server/messages.py session_gone")
    connection.detach_session()
    assert connection._session is None, relied_on("server/messages.py session_gone")


def test_xdists_file_scheduling_splits_its_work_by_split_scope():
    """support/server_scopes.py sends the files that take a shared server to one worker by overriding
    _split_scope: if xdist stopped calling it, those servers would start in each worker again, unseen."""
    from xdist.scheduler import LoadFileScheduling
    from xdist.scheduler.loadscope import LoadScopeScheduling

    where = "tests/support/server_scopes.py ServerScopes._split_scope"
    assert "_split_scope" in vars(LoadFileScheduling), relied_on(where)
    assert "self._split_scope(nodeid)" in inspect.getsource(LoadScopeScheduling.schedule), relied_on(where)
