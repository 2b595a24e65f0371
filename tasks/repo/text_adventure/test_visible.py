from adventure.engine import apply_command
from adventure.state import new_game
from adventure.world import build_world


def test_take_lamp():
    state, message = apply_command(build_world(), new_game(), "take the lamp")
    assert state.inventory == ("lamp",)
    assert state.moves == 1
    assert message == "Taken: lamp."


def test_unknown_command():
    start = new_game()
    state, message = apply_command(build_world(), start, "dance wildly")
    assert state is start
    assert message == "I don't understand that."
