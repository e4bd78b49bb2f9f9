"""/class/results.csv: the class's questions, true values and guesses, for the teacher alone (``classroom.results``)."""

from __future__ import annotations

from tornado.web import RequestHandler

from explainer.classroom.results import results_csv
from explainer.server.class_room import room_of
from explainer.server.config import config_of


class ResultsHandler(RequestHandler):
    """The CSV of the class's results, as a download; a 403 for anyone but the teacher."""

    def get(self) -> None:
        config = config_of(self.application)
        if config.classroom is None:
            return self.send_error(404)
        if not (config.access.allows(self) and config.classroom.teacher.allows(self)):
            self.set_status(403)
            self.set_header("Content-Type", "text/plain; charset=utf-8")
            return self.finish("The class's results are the teacher's: open /teach first.\n")
        self.set_header("Content-Type", "text/csv; charset=utf-8")
        self.set_header("Content-Disposition", 'attachment; filename="class-results.csv"')
        self.set_header("Cache-Control", "no-store")
        return self.finish(results_csv(room_of(self.application).questions))
