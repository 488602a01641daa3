"""Methods of immutable objects remembered per object: a table narrowed to a project's releases
is narrowed once per process, however many rule sets (the flake8 plugin makes one per set of
codes a file triggers) ask for it."""

from __future__ import annotations

import functools


def per_object(method):
    """``method(self, releases)`` kept by the object's identity and ``tuple(releases)``: for an
    object never changed once made (a frozen dataclass), whose equality may be costly or
    undefined (dict fields). The object is kept with its answer, so its identity is never
    another's."""
    kept: dict = {}

    @functools.wraps(method)
    def remembered(self, releases):
        releases = tuple(releases)
        found = kept.get((id(self), releases))
        if found is None or found[0] is not self:
            found = kept[id(self), releases] = (self, method(self, releases))
        return found[1]

    return remembered


def by_identity(function):
    """``function(*objects)`` kept by the objects' identities (each kept with the answer): for
    objects never changed once made, such as the tables read once per process."""
    kept: dict = {}

    @functools.wraps(function)
    def remembered(*objects):
        key = tuple(map(id, objects))
        found = kept.get(key)
        if found is None:
            found = kept[key] = (objects, function(*objects))
        return found[1]

    return remembered
