"""One-line errors of the command line and their exit statuses."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

import click

from adapters.errors import AdapterError

#: Exit status of usage and input errors (bad file, invalid scene, unknown token, 4xx).
EXIT_INPUT = 2
#: Exit status of server, connection and internal errors.
EXIT_FAILURE = 1


class CliError(click.ClickException):
    """Raised for a usage or input error: printed as one line, exit status 2.

    Parameters
    ----------
    message : str
        What went wrong; whitespace (newlines included) is collapsed to single spaces.
    """

    exit_code = EXIT_INPUT

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))

    def show(self, file: IO[Any] | None = None) -> None:
        """Print ``sightline: error: <message>`` on stderr."""
        click.echo(f"sightline: error: {self.message}", err=True)


class CliFailure(CliError):
    """Raised for a server, connection or internal error: one line, exit status 1."""

    exit_code = EXIT_FAILURE


class SightlineGroup(click.Group):
    """The command group; an unexpected exception becomes a one-line error, not a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the subcommand, turning unexpected exceptions into :class:`CliFailure`."""
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as err:  # the one place that turns a bug into one line
            text = str(err).splitlines()[0] if str(err) else ""
            raise CliFailure(f"internal error: {type(err).__name__}: {text}") from err


def error_text(messages: Any) -> str:
    """``path: message`` for the first error of a nested error dict, ``(+n more)``."""
    # Imported here: service.client brings in requests, which `sightline --help` never needs.
    from service.client import error_lines

    lines = error_lines(messages)
    if not lines:
        return "invalid"
    path, msg = lines[0]
    more = f" (+{len(lines) - 1} more)" if len(lines) > 1 else ""
    return f"{path}: {msg}{more}" if path else f"{msg}{more}"


def at_path(message: str, path: tuple[str | int, ...], where: str = "") -> str:
    """``where: message (at a.b.0)``: an error of the core or an adapter, for one line."""
    at = ".".join(str(p) for p in path)
    prefix = f"{where}: " if where else ""
    return f"{prefix}{message}" + (f" (at {at})" if at else "")


@contextmanager
def adapter_errors(where: str) -> Iterator[None]:
    """Turn an adapter's error (an export it cannot read) into :class:`CliError`."""
    try:
        yield
    except AdapterError as err:
        raise CliError(at_path(err.message, err.path, where)) from None
