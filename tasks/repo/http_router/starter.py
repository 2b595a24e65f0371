from webrouter.errors import HTTPError, error_response
from webrouter.http import Request, Response, normalize_path, text_response
from webrouter.routing import Router


def dispatch(router: Router, request: Request) -> Response:
    """Route `request` to the first matching handler and return its response."""
