import pytest

from webrouter.dispatch import dispatch
from webrouter.errors import HTTPError, error_response
from webrouter.http import Request, Response, text_response
from webrouter.routing import Router


def build_router():
    router = Router()
    seen = []

    @router.route("GET", "/users/<int:user_id>")
    def get_user(request, user_id):
        seen.append(user_id)
        return f"user {user_id}"

    @router.route("DELETE", "/users/<int:user_id>")
    def delete_user(request, user_id):
        return None

    @router.route("POST", "/users")
    def create_user(request):
        return Response(201, "created", {"Location": "/users/1"})

    @router.route("GET", "/posts/<slug:title>")
    def get_post(request, title):
        if title == "secret":
            raise HTTPError(403)
        if title == "broken":
            raise HTTPError(400, "bad post")
        return title.upper()

    return router, seen


def test_params_are_converted_and_text_response_used():
    router, seen = build_router()
    response = dispatch(router, Request("GET", "//users//42/?verbose=1"))
    assert seen == [42]
    assert response == text_response("user 42")


def test_response_passthrough_and_none_is_204():
    router, _ = build_router()
    created = dispatch(router, Request("post", "/users/"))
    assert (created.status, created.body, created.headers) == (201, "created", {"Location": "/users/1"})
    deleted = dispatch(router, Request("DELETE", "/users/3"))
    assert (deleted.status, deleted.body, deleted.headers) == (204, "", {})


def test_404_uses_error_response():
    router, _ = build_router()
    assert dispatch(router, Request("GET", "/users/abc")) == error_response(404)
    assert dispatch(router, Request("GET", "/posts/Not_A_Slug")) == error_response(404)


def test_405_with_sorted_allow_header():
    router, _ = build_router()
    response = dispatch(router, Request("PUT", "/users/5"))
    expected = error_response(405)
    assert response.status == 405
    assert response.body == expected.body
    assert response.headers == {**expected.headers, "Allow": "DELETE, GET, HEAD"}
    post_only = dispatch(router, Request("GET", "/users"))
    assert post_only.headers["Allow"] == "POST"


def test_http_error_from_handler():
    router, _ = build_router()
    assert dispatch(router, Request("GET", "/posts/secret")) == error_response(403)
    assert dispatch(router, Request("GET", "/posts/broken")) == error_response(400, "bad post")


def test_head_uses_get_route_with_empty_body():
    router, seen = build_router()
    response = dispatch(router, Request("HEAD", "/users/9"))
    assert seen == [9]
    assert response.status == 200
    assert response.body == ""
    assert response.headers == text_response("x").headers


def test_first_matching_route_wins():
    router = Router()
    router.add("GET", "/items/<int:item_id>", lambda req, item_id: "by id")
    router.add("GET", "/items/<name>", lambda req, name: f"by name {name}")
    router.add("POST", "/items/<name>", lambda req, name: "posted")
    assert dispatch(router, Request("GET", "/items/12")).body == "by id"
    assert dispatch(router, Request("GET", "/items/bolt")).body == "by name bolt"
    assert dispatch(router, Request("POST", "/items/12")).body == "posted"


def test_root_path_and_non_string_results():
    router = Router()
    router.add("GET", "/", lambda req: 12345)
    response = dispatch(router, Request("GET", "/?x=1"))
    assert response == text_response("12345")


def test_other_exceptions_propagate():
    router = Router()

    def boom(request):
        raise RuntimeError("boom")

    router.add("GET", "/boom", boom)
    with pytest.raises(RuntimeError):
        dispatch(router, Request("GET", "/boom"))


def test_handler_receives_request():
    router = Router()
    router.add("GET", "/echo", lambda req: req.headers.get("X-Name", "anon"))
    assert dispatch(router, Request("GET", "/echo", {"X-Name": "zoé"})).body == "zoé"
