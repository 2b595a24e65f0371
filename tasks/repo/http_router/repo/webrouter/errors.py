"""HTTP errors and the responses that represent them."""

from webrouter.http import Response

REASONS = {
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    500: "Internal Server Error",
}


class HTTPError(Exception):
    """Raise from a handler to abort with an error status."""

    def __init__(self, status: int, message: str | None = None) -> None:
        super().__init__(status, message)
        self.status = status
        self.message = message


def error_response(status: int, message: str | None = None) -> Response:
    """Plain-text error response; the body defaults to the reason phrase."""
    body = message if message is not None else REASONS.get(status, "Error")
    return Response(status, body, {"Content-Type": "text/plain; charset=utf-8", "X-Error": "1"})
