"""Starting a command's sandbox before the command line is fully handled.

`codegym judge` spends its first ~0.1 s importing typer, rich and its commands, converting its
arguments (typer's conversion alone imports pydantic) and loading the task pack, and only then asked
for its workers, which take another ~0.07 s (local) or ~0.4 s (docker containers) to come up. Here
the workers begin first and come up while the command does the rest; the command's own
`create_backend` call then receives that backend (see `sandbox.backend.start_backend_early`):

* `start_default_sandbox_early`: a judge command line that names no option choosing its sandbox
  judges on the local backend's default workers; they begin before typer is imported (from the
  console script, `codegym.cli.entry`);
* `start_sandbox_early`: a docker judge, from the raw values of its options (click's parser, no
  conversion), once typer is imported.

Only what the command would do anyway is done early, with the same arguments: when the guess is
wrong (a value the command rejects, another backend), the command creates its own and the early
one is closed unused. Nothing is reused across processes.
"""

from __future__ import annotations

from typing import Any

# Commands whose backend is started early once typer has parsed the command line: the docker
# backend, where the start is long.
EARLY_BACKENDS = ("docker",)
# The options of `judge` that choose its sandbox. A command line naming none of them, or naming only
# the local backend and a number of workers, judges on local workers that can begin before typer is
# even imported; one naming a cluster or a reward configuration is left to the command.
BACKEND_OPTIONS = ("--backend", "-b")
WORKERS_OPTIONS = ("--workers", "-w")
UNGUESSED_OPTIONS = ("--ray-address", "--reward-config")


def start_default_sandbox_early(argv: list[str]) -> bool:
    """Begin the local sandbox of `codegym judge ARGV` before typer and the commands are imported
    (~50 ms of the command's start, then ~40 ms more to its backend), when ARGV asks for the local
    backend (by default or by `--backend local`) and names no cluster or reward configuration; True
    when one was begun. A guess: the command hands the backend over only when its own parsed
    arguments ask for the same one (see `start_backend_early`)."""
    if not argv or argv[0] != "judge" or "--help" in argv:
        return False
    values = _sandbox_option_values(argv[1:])
    if values is None or values.get("backend", "local") != "local":
        return False
    try:
        workers = int(values.get("workers", "0"))
    except ValueError:
        return False  # the command reports the bad value itself
    if workers < 0:
        return False
    rewarded = [arg for arg in argv if arg in ("--reward", "--no-reward")]
    try:
        from codegym.reward.session import JudgingOptions
        from codegym.sandbox.backend import start_backend_early

        if rewarded and rewarded[-1] == "--no-reward":
            options = JudgingOptions(backend="local", workers=workers, reward=None)
        else:  # the default reward configuration
            options = JudgingOptions(backend="local", workers=workers)
        return start_backend_early(**options.backend_arguments())
    except Exception:  # whatever failed here fails again where the command reports it
        return False


def _sandbox_option_values(args: list[str]) -> dict[str, str] | None:
    """The raw values of `--backend` and `--workers` in ARGS (the last one given wins, as in click),
    or None when ARGS names an option this guess leaves to the command."""
    values: dict[str, str] = {}
    for index, arg in enumerate(args):
        name, equals, value = arg.partition("=")
        if name in UNGUESSED_OPTIONS:
            return None
        for key, options in (("backend", BACKEND_OPTIONS), ("workers", WORKERS_OPTIONS)):
            long_option, short_option = options
            if name == long_option or arg == short_option:
                if not equals:
                    if index + 1 == len(args):
                        return None  # a missing value: the command reports it
                    value = args[index + 1]
                values[key] = value
            elif arg.startswith(short_option) and not arg.startswith("--"):
                values[key] = arg[len(short_option) :]  # click's attached short value: -w2
    return values


def start_sandbox_early(app: Any, argv: list[str]) -> bool:
    """Begin the sandbox of `codegym judge ARGV` now; True when one was begun."""
    if not argv or argv[0] != "judge" or not any(name in arg for arg in argv for name in EARLY_BACKENDS):
        return False  # cheap test first: every other command line costs nothing here
    try:
        arguments = _judge_backend_arguments(app, argv[1:])
    except Exception:  # the command reports a bad command line itself
        return False
    if arguments is None:
        return False
    from codegym.sandbox.backend import start_backend_early

    return start_backend_early(**arguments)


def _judge_backend_arguments(app: Any, args: list[str]) -> dict[str, Any] | None:
    """The `create_backend` arguments `judge` will use, made from the raw values of its options the
    way the command makes them (`judging_options`, `JudgingOptions.backend_arguments`); None when
    its backend is not one started early."""
    from pathlib import Path

    import typer.main

    from codegym.cli.common import judging_options, reward_config

    command = typer.main.get_command(app).commands["judge"]  # type: ignore[attr-defined]
    context = command.context_class(command, info_name="judge", resilient_parsing=True)
    raw, _, _ = command.make_parser(context).parse_args(list(args))
    if raw.get("help") or raw.get("backend_name") not in EARLY_BACKENDS:
        return None
    path = raw.get("reward_config_path")
    options = judging_options(
        raw["backend_name"],
        int(raw.get("workers") or 0),
        ray_address=raw.get("ray_address"),
        reward=reward_config(Path(path) if path else None) if raw.get("with_reward", True) else None,
        cache="default",  # the stores play no part in the backend
        yardsticks="default",
    )
    return options.backend_arguments()
