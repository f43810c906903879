"""Running automatic judges: grade pooled pairs with a model (``relkit judges-run``).

- :mod:`.backend`: the small protocol a grading backend follows (an answer per pair);
- :mod:`.prompt`: the default UMBRELA-structured prompt, user templates, the answer parser;
- :mod:`.chat`: the OpenAI-compatible chat-completions backend (stdlib HTTP, retries);
- :mod:`.cache`: the answers file, written as each answer arrives;
- :mod:`.runner`: bounded concurrency, budgets, token counts, progress;
- :mod:`.cli`: the command.
"""
