"""``sightline``: the command line of Sightline (click).

Every query command reads a scene file -- a canonical scene JSON, the output of ``sightline
import``, or any supported export (Foundry VTT, Roll20, Universal VTT; imported first) --
and answers either **locally** (the scene is validated with ``schemas.scene.SceneSchema``,
built, and asked through the operation table ``service.operations``, the same request and
response schemas and core calls as the HTTP API) or, with ``--url``, **through a server**
with :class:`service.client.SightlineClient`. The answer is a human-readable table, or with
``--json`` the same JSON as the HTTP API (``shared/API.md``).

Tokens are named by id or by name (a name must be unique in the scene).

Errors (file missing, not JSON, invalid scene with the field path, unknown token, server
error) are one line on stderr, ``sightline: error: ...``, and a non-zero exit status:
2 for usage and input errors (including 4xx answers), 1 for server, connection and
internal errors. No traceback is ever shown.

Modules, one idea each:

- :mod:`service.cli.commands`: the click commands (entry point :func:`main`);
- :mod:`service.cli.session`: the scene file, token names and options of a query command;
- :mod:`service.cli.files`: reading scene files and exports into a canonical scene;
- :mod:`service.cli.local` / :mod:`service.cli.remote`: the two backends;
- :mod:`service.cli.text`: answers as text tables;
- :mod:`service.cli.errors`: one-line errors and exit statuses.

The heavy backends (numpy, shapely, marshmallow, the rules; requests) are imported only
when a command needs them, so ``sightline --help`` starts fast.
"""

from service.cli.commands import main

__all__ = ["main"]
