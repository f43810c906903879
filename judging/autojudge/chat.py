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

Also asked again: an answer that is not HTTP (``http.client.HTTPException``: a bad status
line, a header line too long); any other error reading one answer fails that pair only.

The API key is sent as ``Authorization: Bearer KEY`` and never appears in a message: the
server's own error text is quoted only with the key (and the URL's query) taken out, before
it is cut to 200 characters. A query in ``--endpoint`` (``?api-key=...``) is sent but shown
as ``?***`` and never stored; a ``user:password@`` is refused (it would not be sent).
"""

from __future__ import annotations

import email.utils
import hashlib
import http.client
import json
import socket
import time
from collections.abc import Callable
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from relkit.judging.autojudge.backend import Answer, BackendError, Request
from relkit.judging.autojudge.prompt import Template, parse

MAX_WAIT = 60.0  # seconds: the longest wait between two attempts (Retry-After too)
RETRYABLE = {408, 429, 500, 502, 503, 504}
QUOTED = 200  # characters of the server's own error text quoted in a message


def chat_url(endpoint: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, path) of the chat-completions URL for ``endpoint``: a base
    (``http://localhost:8000/v1``) gets ``/chat/completions``; a full URL is kept.
    Raises ``ValueError`` with the reason for anything else (never quoting the URL)."""
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("expected an http:// or https:// URL such as "
                         "http://localhost:8000/v1")
    if "@" in parts.netloc:
        # http.client would not send it: a run would fail on a key the user thinks is given.
        raise ValueError("a user name or password in the URL is not sent; give the key in "
                         "the environment variable --key-env names")
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


def shown_url(endpoint: str) -> str:
    """``endpoint`` for messages: as typed, without ``user:password@`` and with its query
    shown as ``?***`` (it may hold a key)."""
    try:
        parts = urlsplit(endpoint)
    except ValueError:  # not a URL at all (a bracket out of place)
        return endpoint.rpartition("@")[2].partition("?")[0]
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path,
                       "***" if parts.query else "", ""))


def endpoint_key(endpoint: str) -> str:
    """One spelling per endpoint, for the cache key: ``scheme://host:port/path`` of the
    chat-completions URL, without user info or query (a base URL, its trailing slash
    and its /chat/completions URL are one endpoint)."""
    scheme, host, port, path = chat_url(endpoint)
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}:{port}{path.partition('?')[0]}"


def _secrets(endpoint: str, api_key: str | None) -> list[str]:
    """What a message must never show: the key, the URL's query and its values."""
    query = urlsplit(endpoint).query
    found = [api_key or "", query] + [v for _, v in parse_qsl(query) if len(v) >= 6]
    return sorted({s for s in found if s}, key=len, reverse=True)  # longest first


def _count(value: object) -> int:
    """A token count as the server reports it; anything but a count (a string, a
    fraction, a negative number) counts 0: the answer is kept, not lost over usage."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return int(value) if value >= 0 and float(value).is_integer() else 0


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
        self.endpoint = shown_url(endpoint)  # in messages: never a key from the URL
        self._secrets = _secrets(endpoint, api_key)
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
        # The cache key's backend part: which endpoint (one spelling), which model; with
        # cache_key's hash of the request sent (prompt, max_tokens) it keys an answer.
        self.name = f"{endpoint_key(endpoint)}|{model}"

    def __repr__(self) -> str:  # never the key
        return f"ChatBackend({self.endpoint!r}, {self.model!r})"

    def _clean(self, text: str) -> str:
        """The server's text for a message: secrets out first, then cut (a secret cut
        in two would no longer be found)."""
        for secret in self._secrets:
            text = text.replace(secret, "***")
        text = " ".join(text.split())[:QUOTED]
        for secret in self._secrets:  # a start of one the server quoted, cut at the end
            for n in range(len(secret) - 1, min(8, len(secret)) - 1, -1):
                if text.endswith(secret[:n]):
                    text = text[:-n] + "***"
                    break
        return text

    def _body(self, request: Request) -> bytes:
        prompt = self.template.render(request, self.scale)
        body: dict[str, object] = {"model": self.model, "temperature": 0,
                                   "messages": [{"role": "user", "content": prompt}]}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        return json.dumps(body).encode("utf-8")

    def cache_key(self, request: Request) -> str:
        """The answer's key in the answers file: the endpoint, the model and a hash of
        the very request sent (the prompt with the texts and the scale, max_tokens)."""
        return f"{self.name}|{hashlib.sha256(self._body(request)).hexdigest()[:32]}"

    def grade(self, request: Request) -> Answer:
        data = self._body(request)
        attempt = 0
        while True:
            try:
                wait, why = self._attempt(data)
            except BackendError:
                raise
            except Exception as exc:  # an answer nobody foresaw: this pair only
                raise BackendError(f"{self.endpoint}: topic {request.topic!r} document "
                                   f"{request.doc!r}: an answer that cannot be read "
                                   f"({type(exc).__name__}: {self._clean(str(exc))})"
                                   ) from None
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
            except http.client.HTTPException as exc:  # not HTTP: its text is not quoted
                return None, f"a malformed HTTP answer: {type(exc).__name__}"
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
                what = (f"has no chat completions at {self.path.partition('?')[0]} or no "
                        f"model {self.model!r}")
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
        return parse(content, self.grades, _count(t_in), _count(t_out))
