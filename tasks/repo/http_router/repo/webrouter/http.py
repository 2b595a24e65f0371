"""Request and response objects."""

from dataclasses import dataclass, field


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Response:
    status: int
    body: str = ""
    headers: dict[str, str] = field(default_factory=dict)


def text_response(body: str, status: int = 200) -> Response:
    return Response(status, body, {"Content-Type": "text/plain; charset=utf-8"})


def normalize_path(path: str) -> str:
    """Drop the query string, collapse repeated slashes and remove a trailing slash.

    >>> normalize_path("//users/42/?page=2")
    '/users/42'
    """
    path = path.split("?", 1)[0]
    return "/" + "/".join(part for part in path.split("/") if part)
