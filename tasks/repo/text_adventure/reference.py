from adventure.messages import say
from adventure.parser import parse_command
from adventure.state import GameState
from adventure.world import Room


def apply_command(world: dict[str, Room], state: GameState, text: str) -> tuple[GameState, str]:
    """Apply one player command and return the new state and the message to show."""
    verb, obj = parse_command(text)
    room = world[state.room]
    here = state.items_here()
    if verb == "look" and obj is None:
        return state, room.describe(here)
    if verb == "inventory" and obj is None:
        if not state.inventory:
            return state, say("inventory_empty")
        return state, say("inventory", items=", ".join(state.inventory))
    if obj is None:
        return state, say("unknown")
    if verb == "go":
        if obj not in room.exits:
            return state, say("no_exit")
        required = room.locks.get(obj)
        if required is not None and required not in state.inventory:
            return state, say("locked", direction=obj)
        target = room.exits[obj]
        moved = state.with_changes(room=target, moves=state.moves + 1)
        return moved, say("moved", direction=obj) + "\n" + world[target].describe(moved.items_here())
    if verb == "take":
        if obj not in here:
            return state, say("not_here", item=obj)
        remaining = list(here)
        remaining.remove(obj)
        taken = state.with_changes(
            inventory=tuple(sorted((*state.inventory, obj))),
            room_items={**state.room_items, state.room: tuple(remaining)},
            moves=state.moves + 1,
        )
        return taken, say("taken", item=obj)
    if verb == "drop":
        if obj not in state.inventory:
            return state, say("not_carried", item=obj)
        carried = list(state.inventory)
        carried.remove(obj)
        dropped = state.with_changes(
            inventory=tuple(carried),
            room_items={**state.room_items, state.room: (*here, obj)},
            moves=state.moves + 1,
        )
        return dropped, say("dropped", item=obj)
    return state, say("unknown")
