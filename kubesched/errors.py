"""Errors that carry their location, so the CLI can print one precise line and exit 1."""

from __future__ import annotations


class KubeschedError(Exception):
    """Base class for errors a user can fix: bad input, bad profiles, broken plugins."""


class InputError(KubeschedError):
    """A manifest problem, located by file, object (``pods/ns/name``) and field path."""

    def __init__(self, message: str, *, file: str | None = None, obj: str | None = None,
                 field: str | None = None) -> None:
        self.message = message
        self.file = file
        self.obj = obj
        self.field = field
        super().__init__(str(self))

    def located(self, *, file: str | None = None, obj: str | None = None) -> InputError:
        """Return a copy with the missing parts of the location filled in."""
        return InputError(self.message, file=self.file or file, obj=self.obj or obj, field=self.field)

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.obj, self.field) if p]
        return ": ".join([*parts, self.message])


class ProfileError(KubeschedError):
    """A profile (TOML) problem, located by file and dotted key path."""

    def __init__(self, message: str, *, file: str | None = None, key: str | None = None) -> None:
        self.message = message
        self.file = file
        self.key = key
        super().__init__(str(self))

    def located(self, *, file: str | None = None, key_prefix: str | None = None) -> ProfileError:
        """Return a copy with the file filled in and the key path prefixed."""
        key = self.key
        if key_prefix:
            key = f"{key_prefix}.{key}" if key else key_prefix
        return ProfileError(self.message, file=self.file or file, key=key)

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.key) if p]
        return ": ".join([*parts, self.message])


class PluginError(KubeschedError):
    """A plugin that cannot be loaded or does not match the hookspecs."""

    def __init__(self, message: str, *, plugin: str, distribution: str | None = None) -> None:
        self.message = message
        self.plugin = plugin
        self.distribution = distribution
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"plugin {self.plugin!r}"
        if self.distribution:
            where += f" (from {self.distribution})"
        return f"{where}: {self.message}"
