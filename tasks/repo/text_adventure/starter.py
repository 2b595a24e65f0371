from adventure.messages import say
from adventure.parser import parse_command
from adventure.state import GameState
from adventure.world import Room


def apply_command(world: dict[str, Room], state: GameState, text: str) -> tuple[GameState, str]:
    """Apply one player command and return the new state and the message to show."""
