"""The assessor's terminal UI (Textual). Import :func:`relkit.judging.tui.app.make_app`."""
