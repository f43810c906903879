"""The assessor's terminal UI (Textual). Import :func:`judging.tui.app.make_app`."""
