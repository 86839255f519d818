"""The one kind of error the engine answers a request with: a file, a position, a setting or a
command it cannot use. The message says what and why, in a line a front end shows as it is."""
from __future__ import annotations


class EngineError(ValueError):
    """A request the engine refused (each module's error is one: BookFileError, RecordError, ...)."""
