from webrouter.dispatch import dispatch
from webrouter.http import Request
from webrouter.routing import Router


def test_basic_route_with_int_param():
    router = Router()
    router.add("GET", "/users/<int:user_id>", lambda req, user_id: f"user {user_id}")
    response = dispatch(router, Request("get", "/users/7/"))
    assert response.status == 200
    assert response.body == "user 7"


def test_unknown_path_is_404():
    response = dispatch(Router(), Request("GET", "/nothing"))
    assert response.status == 404
