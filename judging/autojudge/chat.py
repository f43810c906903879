"""An OpenAI-compatible chat-completions backend (vLLM, llama.cpp's server, Ollama, hosted
APIs), on the standard library's HTTP client: one request per pair, no SDK.

Failures, as :class:`~relkit.judging.autojudge.backend.BackendError`:

- asked again with exponential backoff (``backoff * 2**attempt`` seconds, at most
  :data:`MAX_WAIT`; a ``Retry-After`` header's wait instead when the server gives one):
  HTTP 408, 429, 500, 502, 503 and 504, a timeout (``timeout`` seconds for any read
  or the connection), a connection the server dropped; after ``retries`` more attempts
  the pair has no answer (not fatal: the next pairs are asked, a re-run asks this one
  again);
- fatal at once (the run stops): the endpoint cannot be reached (refused, unknown
  host), it refuses the key (401, 403), it has no such path or model (404) or refuses
  the request (other 4xx), or its answer is not a chat completion.

The API key is sent as ``Authorization: Bearer KEY`` and never appears in a message: the
server's own error text is quoted only with the key taken out.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import socket
import time
from collections.abc import Callable
from urllib.parse import urlsplit

from relkit.judging.autojudge.backend import Answer, BackendError, Request
from relkit.judging.autojudge.prompt import Template, parse

MAX_WAIT = 60.0  # seconds: the longest wait between two attempts (Retry-After too)
RETRYABLE = {408, 429, 500, 502, 503, 504}


def chat_url(endpoint: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, path) of the chat-completions URL for ``endpoint``: a base
    (``http://localhost:8000/v1``) gets ``/chat/completions``; a full URL is kept.
    Raises ``ValueError`` with the reason for anything else."""
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("expected an http:// or https:// URL such as "
                         "http://localhost:8000/v1")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise ValueError("the port is not a number from 0 to 65535") from None
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    if parts.query:
        path += "?" + parts.query
    return parts.scheme, parts.hostname, port, path


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class ChatBackend:
    """Grades a pair by asking ``model`` at ``endpoint`` with ``template`` (temperature 0).

    ``scale`` is (grade, label, definition) per grade. ``sleep`` waits between attempts
    (a test gives a recorder).
    """

    def __init__(self, endpoint: str, model: str, template: Template,
                 scale: list[tuple[int, str, str]], *, api_key: str | None = None,
                 timeout: float = 60.0, retries: int = 5, backoff: float = 1.0,
                 max_tokens: int | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.scheme, self.host, self.port, self.path = chat_url(endpoint)
        self.endpoint = endpoint
        self.model = model
        self.template = template
        self.scale = scale
        self.grades = {g for g, _, _ in scale}
        self._key = api_key or None
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_tokens = max_tokens
        self.sleep = sleep
        # The cache key's backend part: where, which model, with which prompt.
        self.name = f"{endpoint}|{model}|{template.digest}"

    def __repr__(self) -> str:  # never the key
        return f"ChatBackend({self.endpoint!r}, {self.model!r})"

    def _clean(self, text: str) -> str:
        text = " ".join(text.split())[:200]
        return text.replace(self._key, "***") if self._key else text

    def grade(self, request: Request) -> Answer:
        prompt = self.template.render(request, self.scale)
        body: dict[str, object] = {"model": self.model, "temperature": 0,
                                   "messages": [{"role": "user", "content": prompt}]}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        data = json.dumps(body).encode("utf-8")
        attempt = 0
        while True:
            wait, why = self._attempt(data)
            if isinstance(wait, Answer):
                return wait
            if attempt >= self.retries:
                raise BackendError(f"{self.endpoint}: topic {request.topic!r} document "
                                   f"{request.doc!r}: no answer after {attempt + 1} "
                                   f"attempts ({why})")
            self.sleep(min(MAX_WAIT, wait if wait is not None
                           else self.backoff * 2 ** attempt))
            attempt += 1

    def _attempt(self, data: bytes) -> tuple[Answer | float | None, str]:
        """An answer, or (the server's wait or None, why) for an attempt to repeat."""
        cls = (http.client.HTTPSConnection if self.scheme == "https"
               else http.client.HTTPConnection)
        conn = cls(self.host, self.port, timeout=self.timeout)
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        try:
            try:
                conn.request("POST", self.path, body=data, headers=headers)
                resp = conn.getresponse()
                payload = resp.read()
            except (ConnectionRefusedError, socket.gaierror) as exc:
                raise BackendError(f"{self.endpoint}: cannot reach the endpoint "
                                   f"({exc.strerror or exc})", fatal=True) from None
            except TimeoutError:
                return None, f"no answer within the {self.timeout:g} s timeout"
            except (http.client.RemoteDisconnected, ConnectionError,
                    http.client.IncompleteRead) as exc:
                return None, f"the connection was dropped ({type(exc).__name__})"
            except OSError as exc:
                raise BackendError(f"{self.endpoint}: cannot reach the endpoint "
                                   f"({exc.strerror or exc})", fatal=True) from None
        finally:
            conn.close()
        status = resp.status
        if status in RETRYABLE:
            return retry_after(resp.getheader("Retry-After")), f"HTTP {status}"
        if status != 200:
            said = self._clean(payload.decode("utf-8", "replace"))
            if status in (401, 403):
                what = "refused the API key" if self._key else "asks for an API key"
            elif status == 404:
                what = f"has no chat completions at {self.path} or no model {self.model!r}"
            else:
                what = "refused the request"
            raise BackendError(f"{self.endpoint}: the endpoint {what} (HTTP {status}"
                               + (f": {said}" if said else "") + ")", fatal=True)
        return self._answer(payload), "ok"

    def _answer(self, payload: bytes) -> Answer:
        try:
            doc = json.loads(payload)
            content = doc["choices"][0]["message"]["content"]
            if content is None:
                content = ""
            if not isinstance(content, str):
                raise TypeError("content is not a string")
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise BackendError(f"{self.endpoint}: the answer is not a chat completion "
                               f"({type(exc).__name__}: {self._clean(str(exc))})",
                               fatal=True) from None
        usage = doc.get("usage") or {}
        t_in = usage.get("prompt_tokens") if isinstance(usage, dict) else 0
        t_out = usage.get("completion_tokens") if isinstance(usage, dict) else 0
        return parse(content, self.grades, int(t_in or 0), int(t_out or 0))
