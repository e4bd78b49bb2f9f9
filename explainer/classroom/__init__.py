"""The class: a teacher's projector and the students' phones on one server (README "Serving for a class").

``address`` is the address students open, and its QR code; ``messages`` what a page and the
server say to each other on the class channel, checked; ``room`` what the class is (who is in
it, what the projector shows, the question asked and its guesses); ``plan`` a lecture plan's
steps; ``results`` the class's guesses as CSV. None of them knows of Tornado or of Panel: the
server (``explainer/server/channel.py``) carries their messages.
"""
