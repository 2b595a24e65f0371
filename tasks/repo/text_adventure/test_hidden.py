from adventure.engine import apply_command
from adventure.state import GameState, new_game
from adventure.world import build_world


def play(*commands):
    world = build_world()
    state = new_game()
    messages = []
    for command in commands:
        state, message = apply_command(world, state, command)
        messages.append(message)
    return state, messages


def test_look_describes_room_with_items():
    state, (message,) = play("look")
    assert message == "Hall\nA draughty entrance hall.\nYou see: lamp.\nExits: east, north."
    assert state.moves == 0


def test_move_with_direction_alias():
    state, (message,) = play("n")
    assert state.room == "library"
    assert state.moves == 1
    assert (
        message
        == "You go north.\nLibrary\nDusty shelves everywhere.\nYou see: book, brass key.\nExits: down, south."
    )


def test_no_exit_and_locked():
    state, messages = play("west", "go north", "go down")
    assert messages[0] == "You can't go that way."
    assert messages[2] == "The way down is locked."
    assert state.room == "library"
    assert state.moves == 1


def test_unlock_with_key_and_inventory_sorted():
    state, messages = play("take lamp", "north", "grab the brass key", "d", "inventory")
    assert state.room == "vault"
    assert state.inventory == ("brass key", "lamp")
    assert messages[2] == "Taken: brass key."
    assert messages[3].startswith("You go down.\nVault\n")
    assert messages[4] == "You are carrying: brass key, lamp."
    assert state.moves == 4


def test_take_and_drop_errors():
    state, messages = play("take rose", "drop lamp", "i")
    assert messages == ["There is no rose here.", "You are not carrying the lamp.", "You are empty-handed."]
    assert state.moves == 0


def test_drop_appends_to_room_items():
    state, messages = play("take lamp", "north", "drop lamp", "look")
    assert messages[2] == "Dropped: lamp."
    assert state.items_here() == ("book", "brass key", "lamp")
    assert state.inventory == ()
    assert "You see: book, brass key, lamp." in messages[3]
    assert state.room_items["hall"] == ()


def test_original_state_never_modified():
    world = build_world()
    start = new_game()
    after, _ = apply_command(world, start, "take lamp")
    assert start.inventory == ()
    assert start.items_here() == ("lamp",)
    assert start.moves == 0
    assert after is not start
    moved, _ = apply_command(world, after, "east")
    assert after.room == "hall"
    assert moved.room == "garden"


def test_unknown_variants_keep_state():
    world = build_world()
    start = new_game()
    for command in ("", "   ", "take", "go", "dance", "look at lamp", "inventory please", "go sideways"):
        state, message = apply_command(world, start, command)
        assert state is start
        expected = "You can't go that way." if command == "go sideways" else "I don't understand that."
        assert message == expected


def test_custom_state_and_world():
    state = GameState("garden", ("rose",), {"garden": ("spade", "pot")}, moves=10)
    new_state, message = apply_command(build_world(), state, "take pot")
    assert new_state.inventory == ("pot", "rose")
    assert new_state.items_here() == ("spade",)
    assert new_state.moves == 11
    assert message == "Taken: pot."
