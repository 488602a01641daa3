"""Methods of immutable objects remembered per object: a table narrowed to a project's releases
is narrowed once per process, however many rule sets (the flake8 plugin makes one per set of
codes a file triggers) ask for it."""

from __future__ import annotations

import functools


def per_object(method):
    """``method(self, releases)`` kept by the object's identity and ``tuple(releases)``: for an
    object never changed once made (a frozen dataclass), whose equality may be costly or
    undefined (dict fields)."""
    remembered = _kept(lambda self, releases: method(self, tuple(releases)),
                       lambda self, releases: (id(self), tuple(releases)))
    return functools.wraps(method)(remembered)


def by_identity(function):
    """``function(*objects)`` kept by the objects' identities: for objects never changed once
    made, such as the tables read once per process."""
    return _kept(function, lambda *objects: tuple(map(id, objects)))


def _kept(function, key_of):
    """``function`` remembered under ``key_of`` its arguments. The arguments are kept with the
    answer: an identity in a key is never another object's while the key is there."""
    kept: dict = {}

    @functools.wraps(function)
    def remembered(*arguments):
        key = key_of(*arguments)
        found = kept.get(key)
        if found is None:
            found = kept[key] = (arguments, function(*arguments))
        return found[1]

    return remembered
