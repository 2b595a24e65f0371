from webrouter.errors import HTTPError, error_response
from webrouter.http import Request, Response, normalize_path, text_response
from webrouter.routing import Router


def dispatch(router: Router, request: Request) -> Response:
    """Route `request` to the first matching handler and return its response."""
    path = normalize_path(request.path)
    method = request.method.upper()
    wanted = "GET" if method == "HEAD" else method
    allowed: set[str] = set()
    for route in router.routes:
        params = route.match(path)
        if params is None:
            continue
        if route.method != wanted:
            allowed.add(route.method)
            continue
        try:
            result = route.handler(request, **params)
        except HTTPError as exc:
            return error_response(exc.status, exc.message)
        if isinstance(result, Response):
            response = result
        elif result is None:
            response = Response(204)
        else:
            response = text_response(str(result))
        if method == "HEAD":
            return Response(response.status, "", dict(response.headers))
        return response
    if not allowed:
        return error_response(404)
    if "GET" in allowed:
        allowed.add("HEAD")
    response = error_response(405)
    response.headers["Allow"] = ", ".join(sorted(allowed))
    return response
